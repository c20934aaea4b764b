// client.mjs — examples/ask through @a2a-js/sdk's own client: a blocking
// sendMessage parks the task in TASK_STATE_INPUT_REQUIRED with its question
// as the "prompt" artifact; a sendMessage whose message names the task
// (taskId) is the reply, and the task completes with it.
//
//   node client.mjs http://127.0.0.1:<port> [reply text]
//
// Exit 0 when both steps answered as input.md says, 1 otherwise.
import { randomUUID } from "node:crypto";
import { ClientFactory } from "@a2a-js/sdk/client";
import { Role, TaskState } from "@a2a-js/sdk";

const [url, replyText = "yes, from the JS SDK"] = process.argv.slice(2);
if (!url) {
  console.error("usage: node client.mjs <door url> [reply text]");
  process.exit(2);
}

const text = (parts) => parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("\n");
const artifact = (task, id) => text(task.artifacts.find((a) => a.artifactId === id)?.parts ?? []);
const message = (body, taskId = "") => ({
  messageId: randomUUID(), contextId: "", taskId, role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: body }, metadata: undefined }],
  metadata: undefined, extensions: [], referenceTaskIds: [],
});
const send = (client, msg) => client.sendMessage({
  tenant: "", message: msg, metadata: undefined,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: false },
});

const client = await new ClientFactory().createFromUrl(url);
const parked = await send(client, message("Shall I release 1.2?"));
console.log(`parked ${parked.id} ${TaskState[parked.status.state]}: ${artifact(parked, "prompt")}`);
if (parked.status.state !== TaskState.TASK_STATE_INPUT_REQUIRED) process.exit(1);

const done = await send(client, message(replyText, parked.id));
console.log(`replied ${done.id} ${TaskState[done.status.state]}: ${artifact(done, "response")}`);
if (done.status.state !== TaskState.TASK_STATE_COMPLETED || artifact(done, "response") !== `The operator says: ${replyText}`) process.exit(1);
