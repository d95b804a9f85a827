// Entry point of `npm start` and the container. Node's on-disk compile cache is
// switched on before anything else loads: later starts skip compiling the
// dependencies (most of the start-up time) and keep less code in memory.
import module from 'node:module';

module.enableCompileCache?.();
await import('./start.ts');
