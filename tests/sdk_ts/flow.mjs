// A flow over Honcho's TypeScript SDK (@honcho-ai/sdk, pinned in package-lock.json), run by Node.
//
//   node tests/sdk_ts/flow.mjs --base-url URL --workspace NAME [--key-file PATH]
//
// Prints one JSON object per line and step: `step`, `outcome` (`ok` or `error <Class> <status>`),
// `result` (what the SDK returned, as JSON) and `wire` (every HTTP exchange of the step: method,
// path, status, content type and body). Values are kept, with what differs from run to run
// masked: the workspace name ({W}), the session name s1 ({S1}), server-made ids ({id}) and
// timestamps ({ts}). The workspace is
// deleted at the end, also on failure. Nothing here knows roncho: it only talks HTTP.

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Honcho } from "@honcho-ai/sdk";
import { masking } from "./masking.mjs";

const { values: args } = parseArgs({
  options: {
    "base-url": { type: "string" },
    workspace: { type: "string" },
    "key-file": { type: "string" },
    // The server's deriver look in seconds (tests/deriver_told.py); 0: it flushes.
    "deriver-look": { type: "string", default: "0" },
  },
});
const LOOK_MS = Number(args["deriver-look"]) * 1000;
const WORKSPACE = args.workspace;
// The cloned session's name is this run's own: Honcho 3.0.12 clones every message of *any*
// workspace's session by that name (docs/compatibility.md, "Server defects"), so a plain "s1"
// collides with another run's workspace still waiting for the deriver to purge it (a 500).
const S1 = `s1-${randomBytes(4).toString("hex")}`;
// The deriver serves every workspace in turn: on a shared server (CI runs this after stages whose
// deletions it still works off) our turn can take minutes.
const DERIVER_WAIT_MS = 180000;

const { maskText, mask, describe } = masking(WORKSPACE, S1);

// Every exchange of the current step, seen through a wrapper around the global fetch.
let exchanges = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const response = await realFetch(input, init);
  const copy = response.clone();
  const url = new URL(typeof input === "string" ? input : input.url);
  const kind = copy.headers.get("content-type");
  const text = await copy.text();
  let body = text;
  if (kind && kind.startsWith("text/event-stream")) {
    body = text
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => JSON.parse(line.slice(5).trim()));
  } else if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  } else {
    body = null;
  }
  exchanges.push({
    method: (init && init.method) || "GET",
    path: maskText(decodeURIComponent(url.pathname)) + maskText(url.search),
    status: response.status,
    content_type: kind,
    body: mask(body),
  });
  return response;
};

async function step(name, action) {
  exchanges = [];
  const record = { step: name };
  try {
    record.result = describe(await action());
    record.outcome = "ok";
  } catch (error) {
    const status = error?.status ?? error?.statusCode ?? null;
    record.outcome = `error ${error?.constructor?.name ?? typeof error} ${status}`;
    if (status === null) record.error = maskText(String(error?.message ?? error)).slice(0, 200);
  }
  record.wire = exchanges;
  process.stdout.write(`${JSON.stringify(record)}\n`);
  return record;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Until the deriver has drained its queue, or (a batching server, as tests/deriver_told.py's
// Watch) what is left is held in a batch: pending, nothing in progress, for a whole deriver
// look. Bounded by DERIVER_WAIT_MS; says which ("drained", "held", "timeout").
async function deriverSettled(honcho) {
  const deadline = Date.now() + DERIVER_WAIT_MS;
  let quietSince = null;
  while (Date.now() < deadline) {
    const status = await honcho.queueStatus();
    const pending = status.pendingWorkUnits;
    const working = status.inProgressWorkUnits;
    if (status.totalWorkUnits && !pending && !working) return "drained";
    quietSince = LOOK_MS && pending && !working ? (quietSince ?? Date.now()) : null;
    if (quietSince !== null && Date.now() - quietSince >= LOOK_MS) return "held";
    await sleep(200);
  }
  return "timeout";
}

// Until no session of the scope has its backfill pending (bounded by DERIVER_WAIT_MS).
async function backfilled(scope) {
  const deadline = Date.now() + DERIVER_WAIT_MS;
  while (Date.now() < deadline) {
    const status = await scope.status();
    const jobs = Object.values(status?.backfillStatus ?? {});
    if (!jobs.some((job) => job?.state === "pending")) return;
    await sleep(100);
  }
}

async function flow(honcho) {
  const saved = {};
  const run = async (name, action, save) => {
    let value;
    await step(name, async () => {
      value = await action();
      return value;
    });
    if (save) saved[save] = value;
    return value;
  };
  await run("workspace metadata set", () => honcho.setMetadata({ k: 1 }));
  await run("workspace metadata get", () => honcho.getMetadata());
  await run("workspace configuration get", () => honcho.getConfiguration());
  await run("workspace configuration set", () =>
    honcho.setConfiguration({ reasoning: { enabled: true } }),
  );
  await run("workspaces list", () => honcho.workspaces({ filters: { id: WORKSPACE } }));
  const alice = await run("peer alice", () => honcho.peer("alice", { metadata: { role: "user" } }));
  const bob = await run("peer bob", () => honcho.peer("bob"));
  await run("peer get metadata", () => alice.getMetadata());
  await run("peer set metadata", () => alice.setMetadata({ role: "admin" }));
  await run("peer get configuration", () => bob.getConfiguration());
  await run("peer set configuration", () => bob.setConfiguration({ observeMe: true }));
  await run("peers list", () => honcho.peers());
  await run("peers list filter", () => honcho.peers({ filters: { metadata: { role: "admin" } } }));
  const s1 = await run("session s1", () => honcho.session(S1, { metadata: { topic: "tea" } }));
  await run("session add peers", () => s1.addPeers([alice, bob]));
  await run("session peers", () => s1.peers());
  await run("session peer config set", () =>
    s1.setPeerConfiguration(bob, { observeOthers: true }),
  );
  await run("session peer config get", () => s1.getPeerConfiguration(bob));
  await run("session set peers", () => s1.setPeers([alice, bob]));
  await run("session metadata get", () => s1.getMetadata());
  await run("session metadata set", () => s1.setMetadata({ topic: "rain" }));
  await run("session configuration get", () => s1.getConfiguration());
  await run("sessions list", () => honcho.sessions());
  await run("peer sessions", () => alice.sessions());
  const messages = await run("messages add", () =>
    s1.addMessages([
      alice.message("I like green tea", { metadata: { n: 1 } }),
      bob.message("Tea is nice", { metadata: { n: 2 } }),
      alice.message("Rain makes me sad", { metadata: { n: 3 } }),
      bob.message("Umbrellas help with the weather outside, and so do warm drinks.", {
        metadata: { n: 4 },
      }),
      alice.message("Naïve café déjà vu: 東京 🌧️ 42 ± 3.14 <tag> {\"json\": true}", {
        metadata: { n: 5 },
      }),
    ]),
  );
  const first = messages?.[0];
  await run("messages list", () => s1.messages());
  await run("messages page size 2", () => s1.messages({ size: 2 }));
  await run("messages reverse", () => s1.messages({ reverse: true }));
  await run("messages filter", () => s1.messages({ filters: { metadata: { n: { gte: 2 } } } }));
  await run("messages filter bad key", () => s1.messages({ filters: { id: "x" } }));
  await run("message get", () => s1.getMessage(first.id));
  await run("message update", () => s1.updateMessage(first, { edited: true }));
  await run("message get missing", () => s1.getMessage("nope"));
  await run("search workspace", () => honcho.search("tea", { limit: 5 }));
  await run("search workspace no match", () => honcho.search("zebra xylophone", { limit: 5 }));
  await run("search workspace filter", () =>
    honcho.search("tea", { filters: { peer_id: "alice" } }),
  );
  await run("search peer", () => alice.search("tea"));
  await run("search peer limit", () => bob.search("rain", { limit: 1 }));
  await run("search session", () => s1.search("tea"));
  await run("search session no match", () => s1.search("zebra"));
  await run("search bad limit", () => honcho.search("tea", { limit: 0 }));
  const view = bob.conclusionsOf(alice);
  // Two requests over a second apart, not one: a representation orders its lines by created_at
  // cut to whole seconds, and lines of the same second come in no fixed order (two runs of the
  // kit's server swapped them).
  const created = await run("conclusions create", async () => {
    const tea = await view.create([{ content: "alice likes tea", sessionId: S1 }]);
    await sleep(1100);
    return [...tea, ...(await view.create([{ content: "alice dislikes rain" }]))];
  });
  const cid = created?.[0]?.id ?? "missing";
  await run("conclusions list", () => view.list());
  await run("conclusions query", () => view.query("tea"));
  await run("conclusions query top_k 1", () => view.query("tea", 1));
  await run("conclusions query distance", () => view.query("unrelated words", 10, 0.05));
  await run("conclusions get", () => view.get(cid));
  await run("conclusions get many", () => view.getMany([cid]));
  await run("conclusions representation", () => view.representation());
  await run("conclusions delete", () => view.delete(cid));
  await run("conclusions delete again", () => view.delete(cid));
  await step("wait for the deriver", async () => {
    const ended = await deriverSettled(honcho);
    exchanges = exchanges.slice(-1);
    return ended;
  });
  await run("conclusions list workspace", () => honcho.conclusions.list());
  await run("queue status", () => honcho.queueStatus());
  await run("queue status session", () => honcho.queueStatus({ session: s1 }));
  await run("queue status observer", () => honcho.queueStatus({ observer: bob }));
  await run("card set", () => bob.setCard(["likes tea"], alice));
  await run("card get", () => bob.getCard(alice));
  await run("card get none", () => alice.getCard());
  await run("peer context", () => bob.context({ target: alice }));
  await run("peer representation", () => bob.representation({ target: alice }));
  await run("peer representation sessions", () =>
    bob.representation({ target: alice, sessions: [S1] }),
  );
  await run("session context", () => s1.context());
  await run("session context tokens", () => s1.context({ tokens: 12 }));
  await run("session context target", () =>
    s1.context({ peerTarget: "alice", peerPerspective: "bob" }),
  );
  await run("session context limit_to_session", () =>
    s1.context({ peerTarget: "alice", peerPerspective: "bob", limitToSession: true }),
  );
  await run("session context to openai", async () =>
    (await s1.context({ tokens: 1000 })).toOpenAI(bob),
  );
  await run("session context to anthropic", async () =>
    (await s1.context({ tokens: 1000 })).toAnthropic(bob),
  );
  await run("session representation", () => s1.representation(bob, { target: alice }));
  await run("session summaries", () => s1.summaries());
  await run("chat", () => bob.chat("what does alice like?"));
  await run("chat target", () => bob.chat("what does alice like?", { target: alice, session: s1 }));
  await run("chat stream", async () => {
    const stream = await bob.chatStream("what does alice like?");
    let text = "";
    for await (const chunk of stream) text += chunk;
    return text;
  });
  await run("chat missing target", () => bob.chat("x", { target: "nobody" }));
  await run("workspace chat", () => honcho.chat("hello", {}));
  const clone = await run("clone", () => s1.clone());
  await run("clone up to message", () => s1.clone(first.id));
  await run("upload file", () =>
    s1.uploadFile(
      {
        filename: "notes.txt",
        content: Buffer.from("alice keeps notes in a file"),
        content_type: "text/plain",
      },
      alice,
    ),
  );
  const scope = await run("scope", () => honcho.scope("sc1"));
  await run("scope again", () => honcho.getScope("sc1"));
  await run("scope missing", () => honcho.getScope("nope"));
  await run("scopes list", () => honcho.scopes());
  // A scope's backfill copies the conclusions the session holds when it runs (`docs_copied`),
  // and it runs on the deriver, beside the conclusions of the messages added just before (the
  // upload): read at once, the status raced the backfill ("pending" or "completed"), and read
  // after the backfill alone, `docs_copied` raced the deriver's last conclusions (5 or 6). So
  // the flow waits, bounded and unrecorded, for the deriver to settle before the add, and for
  // the backfill to end before the status: then both sides read a finished backfill of a
  // settled session.
  await deriverSettled(honcho);
  await run("scope add sessions", () => scope.addSessions([s1]));
  await run("scope sessions", () => scope.sessions());
  await backfilled(scope);
  await run("scope status", () => scope.status());
  await run("search scope", () => honcho.search("tea", { scope }));
  await run("scope remove session", () => scope.removeSession(s1));
  // Token counts of unusual text, and `tokens=` budgets at their boundaries (issue 42): the
  // server counts with tiktoken's o200k_base, and a context keeps the most recent messages
  // whose running sum of counts is at most the budget (3.0.12 `crud/message.py`,
  // `_apply_token_limit`). Each budget is made from the counts this server returned, so the
  // step holds the selection rule itself at its edge on any server; a server that counts
  // otherwise shows in the first step and in the budgets' paths. A session of its own, so no
  // step above sees these messages.
  const s2 = await honcho.session("s2");
  const unusual = await run("unusual text token counts", () =>
    s2.addMessages([
      alice.message("🌧️☔🌈 👩‍👩‍👧‍👦 🏳️‍🌈 🇯🇵 ✨✨✨ 🙂🙃😉"),
      bob.message("東京の天気は雨です。明日は晴れるでしょうか？北京和上海都在下雨。서울은 맑아요."),
      alice.message("=".repeat(400) + " " + "ha".repeat(300)),
      bob.message("Z̴̡a̷l̶g̸o̵ · ∑∫√∞ ≠ ≤ · مرحبا بالعالم · zero\u200bwidth\u200bjoin"),
      alice.message("line one\n\n\tindented\r\n    spaces    end"),
    ]),
  );
  const counts = (unusual ?? []).map((message) => message.tokenCount ?? 0);
  const last = (n) => counts.slice(-n).reduce((sum, count) => sum + count, 0);
  await run("unusual text context at two messages' count", () => s2.context({ tokens: last(2) }));
  await run("unusual text context one token under", () => s2.context({ tokens: last(2) - 1 }));
  await run("unusual text context at the long run", () => s2.context({ tokens: last(3) }));
  await run("unusual text context tokens max", () => s2.context({ tokens: 100000 }));
  await run("unusual text context tokens over max", () => s2.context({ tokens: 100001 }));
  await run("schedule dream", () => honcho.scheduleDream({ observer: bob, observed: alice }));
  await run("workspace delete with sessions", () => honcho.deleteWorkspace(WORKSPACE));
  await run("session delete", () => s1.delete());
  await run("session delete again", () => s1.delete());
  if (clone) await run("clone delete", () => clone.delete());
}

async function cleanup(honcho) {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      const page = await honcho.sessions();
      for (const session of page.items) {
        try {
          await session.delete();
        } catch {
          // already gone
        }
      }
      await honcho.deleteWorkspace(WORKSPACE);
      return;
    } catch {
      await sleep(500);
    }
  }
}

const apiKey = args["key-file"] ? readFileSync(args["key-file"], "utf8").trim() : undefined;
const honcho = new Honcho({
  baseURL: args["base-url"],
  workspaceId: WORKSPACE,
  apiKey,
  timeout: 60000,
  maxRetries: 0,
});
try {
  await flow(honcho);
} finally {
  await cleanup(honcho);
}
