// `node --import tsx --import ./src/platform/loader/register.mjs …` (npm start, npm run worker) and
// the worker threads' boot (platform/workers/boot.mjs): registered after tsx, so its hook runs first
// (hooks chain last-in, first-out). See node-modules-hooks.mjs.
import { register } from 'node:module';

register('./node-modules-hooks.mjs', import.meta.url);
