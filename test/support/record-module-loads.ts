import { registerHooks } from 'node:module';

/**
 * Preloaded with `node --import`: records every module the process loads (ESM and CommonJS alike)
 * and prints their URLs as one `loaded-modules: [...]` line on stderr when the process exits.
 */
const loaded: string[] = [];
registerHooks({
  load(url, context, nextLoad) {
    loaded.push(url);
    return nextLoad(url, context);
  },
});
process.on('exit', () => process.stderr.write(`loaded-modules: ${JSON.stringify(loaded)}\n`));
