// The official MCP TypeScript SDK client (@modelcontextprotocol/sdk) against sosoapi, over
// stdio or streamable HTTP: list the tools, call whoami, retrieve a page twice with one
// mutation_id, retrieve a missing page (a receipt that is not `ready`) and send a refused
// call. The SDK validates every `structuredContent` against the tool's listed
// `outputSchema` itself and throws on a mismatch; any throw exits 1 with the message.
//
//   node sdk_client.mjs '<plan JSON>'
//   plan: {"tools": ".node-tools", "transport": "stdio", "command": ..., "args": [...],
//          "env": {...}} or {..., "transport": "http", "url": ..., "token": ...}, plus
//         "timeout_ms", "workspace_id", "page", "missing", "mutation_ids": [two UUIDs]
// Prints one JSON report on stdout (tests/surfaces/test_node_clients.py reads it).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const RETRIEVE = 'sosoapi_research_evidence_retrieve';
const plan = JSON.parse(process.argv[2]);
// The SDK lives in .node-tools/, not beside this file: resolve it from there.
const tools = path.resolve(plan.tools);
const require = createRequire(path.join(tools, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require(
  '@modelcontextprotocol/sdk/client/streamableHttp.js',
);
// (The SDK's exports map `./package.json` elsewhere: read the file itself.)
const sdkManifest = path.join(tools, 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json');
const sdkVersion = JSON.parse(readFileSync(sdkManifest, 'utf8')).version;

function transportFor(plan) {
  if (plan.transport === 'stdio') {
    return new StdioClientTransport({
      command: plan.command,
      args: plan.args,
      env: plan.env,
      stderr: 'inherit',
    });
  }
  return new StreamableHTTPClientTransport(new URL(plan.url), {
    requestInit: { headers: { Authorization: `Bearer ${plan.token}` } },
  });
}

function retrieve(url, mutationId) {
  const args = { url, kind: 'url_text', workspace_id: plan.workspace_id, mutation_id: mutationId };
  return { name: RETRIEVE, arguments: args };
}

async function step(name, action) {
  try {
    return await action();
  } catch (error) {
    error.message = `${name}: ${error.message}`;
    throw error;
  }
}

async function main() {
  const client = new Client({ name: 'sosoapi-test-ts-sdk', version: sdkVersion });
  const transport = transportFor(plan);
  const options = { timeout: plan.timeout_ms }; // a loaded machine starts the server slowly
  await step('connect', () => client.connect(transport, options));
  try {
    const listed = await step('tools/list', () => client.listTools(undefined, options));
    const call = (name, request) => step(name, () => client.callTool(request, undefined, options));
    const [first, second] = plan.mutation_ids;
    const report = {
      sdk_version: sdkVersion,
      server: client.getServerVersion(),
      protocol_version: transport.protocolVersion ?? null,
      tools: listed.tools.map((t) => ({ name: t.name, output_schema: Boolean(t.outputSchema) })),
      whoami: await call('whoami', { name: 'sosoapi_whoami', arguments: {} }),
      retrieved: await call('retrieve', retrieve(plan.page, first)),
      replayed: await call('replay', retrieve(plan.page, first)),
      missing: await call('retrieve a missing page', retrieve(plan.missing, second)),
      refused: await call('refused retrieve', retrieve(plan.page, 'not-a-uuid')),
    };
    process.stdout.write(JSON.stringify(report) + '\n');
  } finally {
    await client.close();
  }
}

main().catch((error) => {
  process.stderr.write(`sdk_client: ${error?.message ?? error}\n${error?.stack ?? ''}\n`);
  process.exit(1);
});
