// client.mjs — the door through @a2a-js/sdk's own client, told to prefer one
// binding: send, get, cancel, stream and task-not-found, each as the SDK
// reads it. door/jsclient_test.go runs it against a real door.
//
//   node client.mjs <door url> <JSONRPC|HTTP+JSON>
//
// Prints one line per step; exits 0 when every step answered as the A2A
// specification says, 1 otherwise.
import { randomUUID } from "node:crypto";
import { ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";
import { Role, TaskState } from "@a2a-js/sdk";

const [url, binding] = process.argv.slice(2);
if (!url || !binding) {
  console.error("usage: node client.mjs <door url> <JSONRPC|HTTP+JSON>");
  process.exit(2);
}

let failed = false;
const check = (ok, line) => {
  console.log(`${ok ? "ok" : "FAIL"} ${line}`);
  if (!ok) failed = true;
};
const text = (parts) => (parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("\n");
const artifact = (task, id) => text(task.artifacts?.find((a) => a.artifactId === id)?.parts);
const message = (body) => ({
  messageId: randomUUID(), contextId: "", taskId: "", role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: body }, metadata: undefined }],
  metadata: undefined, extensions: [], referenceTaskIds: [],
});
const request = (body, returnImmediately = false) => ({
  tenant: "", message: message(body), metadata: undefined,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately },
});

const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
const client = await factory.createFromUrl(url);
check(client.transport.protocolName === binding, `transport ${client.transport.protocolName}`);

const sent = await client.sendMessage(request("hello"));
check(sent.status?.state === TaskState.TASK_STATE_COMPLETED && artifact(sent, "response") === "hello",
  `send ${sent.id} ${TaskState[sent.status?.state]}: ${artifact(sent, "response")}`);

const got = await client.getTask({ tenant: "", id: sent.id, historyLength: 2 });
check(got.id === sent.id && got.history.length === 2 && got.history[1].role === Role.ROLE_AGENT,
  `get ${got.id} ${TaskState[got.status.state]} history ${got.history.map((m) => Role[m.role]).join(",")}`);

const held = await client.sendMessage(request("hold", true));
const canceled = await client.cancelTask({ tenant: "", id: held.id, metadata: undefined });
check(canceled.status.state === TaskState.TASK_STATE_CANCELED, `cancel ${canceled.id} ${TaskState[canceled.status.state]}`);

const kinds = [];
for await (const ev of client.sendMessageStream(request("streamed"))) {
  const p = ev.payload;
  kinds.push(p.$case === "statusUpdate" ? TaskState[p.value.status.state] : p.$case);
}
check(kinds[0] === "task" && kinds.at(-1) === "TASK_STATE_COMPLETED", `stream ${kinds.join(" ")}`);

try {
  const t = await client.getTask({ tenant: "", id: "tsk_00000000000070008000000000000000", historyLength: undefined });
  check(false, `task-not-found answered a task ${t.id}`);
} catch (err) {
  check(err.name === "TaskNotFoundError", `task-not-found ${err.name}: ${err.message}`);
}
process.exit(failed ? 1 : 0);
