// A minimal A2A v1.0 door built on the official @a2a-js/sdk (1.3.0): the
// SDK's DefaultRequestHandler, InMemoryTaskStore and express jsonRpcHandler,
// with a trivial executor. Used to judge `mur conformance` against a door
// that is not mur's.
//
// The executor asks one question: a new task parks in INPUT_REQUIRED; a reply
// naming the task completes it. A task whose text contains "hold" works until
// canceled. With MODE=echo every new task completes at once instead.
//
// PORT (default 41299) and TOKEN (when set, a bearer token every JSON-RPC
// request must carry; the card declares it) come from the environment.
import express from 'express';
import { randomUUID } from 'node:crypto';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const PORT = Number(process.env.PORT || 41299);
const TOKEN = process.env.TOKEN || '';
const MODE = process.env.MODE || 'ask';
const URL = `http://127.0.0.1:${PORT}/`;

const TaskState = { SUBMITTED: 1, WORKING: 2, COMPLETED: 3, CANCELED: 5, INPUT_REQUIRED: 6 };
const ROLE_AGENT = 2;

const card = {
  name: 'js-reference',
  description: 'A trivial agent on the @a2a-js/sdk reference server',
  supportedInterfaces: [{ url: URL, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
  provider: undefined,
  version: '1.3.0',
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  // The card handler serves this object with JSON.stringify, so the oneof is
  // written in its ProtoJSON form here, not as the SDK's {$case, value}.
  securitySchemes: TOKEN ? { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } } : {},
  securityRequirements: TOKEN ? [{ schemes: { bearer: { list: [] } } }] : [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'ask', name: 'Ask', description: 'Asks who is asking, then answers', tags: ['sample'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: [],
};

function agentMessage(taskId, contextId, text) {
  return {
    messageId: randomUUID(), contextId, taskId, role: ROLE_AGENT,
    parts: [{ content: { $case: 'text', value: text }, metadata: {}, filename: '', mediaType: 'text/plain' }],
    metadata: {}, extensions: [], referenceTaskIds: [],
  };
}

function textOf(message) {
  return message.parts.filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join('');
}

class AskExecutor {
  held = new Map(); // taskId → resolve of a held task
  contexts = new Map(); // taskId → contextId, for the cancel's status update

  status(bus, taskId, contextId, state, text) {
    bus.publish(AgentEvent.statusUpdate({
      taskId, contextId, metadata: {},
      status: { state, message: text ? agentMessage(taskId, contextId, text) : undefined, timestamp: new Date().toISOString() },
    }));
  }

  execute = async (rc, bus) => {
    const { taskId, contextId } = rc;
    const text = textOf(rc.userMessage);
    this.contexts.set(taskId, contextId);
    if (rc.task) { // a reply to the question
      bus.publish(AgentEvent.task(rc.task));
      this.status(bus, taskId, contextId, TaskState.COMPLETED, `Thanks, ${text}.`);
      bus.finished();
      return;
    }
    bus.publish(AgentEvent.task({
      id: taskId, contextId, artifacts: [], history: [rc.userMessage], metadata: {},
      status: { state: TaskState.SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    }));
    if (text.includes('hold')) {
      this.status(bus, taskId, contextId, TaskState.WORKING, 'holding');
      await new Promise((resolve) => this.held.set(taskId, resolve));
      this.status(bus, taskId, contextId, TaskState.CANCELED, 'canceled');
      bus.finished();
      return;
    }
    if (MODE === 'echo') {
      this.status(bus, taskId, contextId, TaskState.COMPLETED, `You said: ${text}`);
    } else {
      this.status(bus, taskId, contextId, TaskState.INPUT_REQUIRED, 'Who is asking?');
    }
    bus.finished();
  };

  cancelTask = async (taskId, bus) => {
    const release = this.held.get(taskId);
    if (release) {
      this.held.delete(taskId);
      release();
      return;
    }
    bus.publish(AgentEvent.statusUpdate({
      taskId, contextId: this.contexts.get(taskId) ?? '', metadata: {},
      status: { state: TaskState.CANCELED, message: undefined, timestamp: new Date().toISOString() },
    }));
    bus.finished();
  };
}

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new AskExecutor());
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
if (TOKEN) {
  // RFC 6750 §3: a refusal carries a Bearer challenge. This door gives the
  // bare challenge and no error attribute (the RFC's SHOULD, not its MUST).
  app.use((req, res, next) => {
    if (req.get('authorization') === `Bearer ${TOKEN}`) return next();
    res.set('WWW-Authenticate', 'Bearer realm="js-reference"').status(401).json({ error: 'unauthorized' });
  });
}
app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
const server = app.listen(PORT, '127.0.0.1', () => console.log(`listening ${URL}`));
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)));
