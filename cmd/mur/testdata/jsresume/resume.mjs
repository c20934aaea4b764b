// resume.mjs — a task that waited for input across a kill, through
// @a2a-js/sdk's own client: getTask shows it TASK_STATE_INPUT_REQUIRED with
// its question as the status message, and a sendMessage naming it (taskId)
// is the reply that completes it.
//
//   node resume.mjs <door url> <task id> <reply text>
//
// Prints "waiting <state>: <status text>" and "replied <state>: <answer>";
// exit 0 when both read as input.md says, 1 otherwise.
import { randomUUID } from "node:crypto";
import { ClientFactory } from "@a2a-js/sdk/client";
import { Role, TaskState } from "@a2a-js/sdk";

const [url, id, replyText] = process.argv.slice(2);
const text = (parts) => (parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("\n");
const artifact = (task, name) => text(task.artifacts.find((a) => a.artifactId === name)?.parts);

const client = await new ClientFactory().createFromUrl(url);
const got = await client.getTask({ tenant: "", id, historyLength: undefined });
console.log(`waiting ${TaskState[got.status.state]}: ${text(got.status.message?.parts)}`);
if (got.status.state !== TaskState.TASK_STATE_INPUT_REQUIRED) process.exit(1);

const done = await client.sendMessage({
  tenant: "", metadata: undefined,
  message: {
    messageId: randomUUID(), contextId: "", taskId: id, role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: replyText }, metadata: undefined }],
    metadata: undefined, extensions: [], referenceTaskIds: [],
  },
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: false },
});
console.log(`replied ${TaskState[done.status.state]}: ${artifact(done, "response")}`);
if (done.id !== id || done.status.state !== TaskState.TASK_STATE_COMPLETED) process.exit(1);
