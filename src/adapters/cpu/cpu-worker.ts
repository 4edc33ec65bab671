/** The worker script of the gateway's CPU pool (src/adapters/cpu/thread-pool.ts). */
import type { CpuTaskCatalog } from '../../ports/cpu-pool.port.ts';
import { CPU_TASK_TRANSFERS, CPU_TASKS } from './cpu-tasks.ts';
import { serveTasks } from './serve-tasks.ts';

serveTasks<CpuTaskCatalog>(CPU_TASKS, CPU_TASK_TRANSFERS);
