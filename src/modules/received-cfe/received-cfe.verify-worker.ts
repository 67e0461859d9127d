/** Worker-thread entry of the received-CFE verification pool (received-cfe.verify.ts). */
import { serveWorkerTasks } from '../../platform/workers/pool.js';
import { verifyCfes, type CfeVerifyTask } from './received-cfe.verify.js';

serveWorkerTasks<CfeVerifyTask, ReturnType<typeof verifyCfes>>(verifyCfes);
