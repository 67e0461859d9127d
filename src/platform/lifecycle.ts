/** Process supervision shared by the entry points (issue 44). */
/**
 * Under npm, the service's parent is npm (the start script execs node, so npm's SIGTERM/SIGINT
 * reach it directly). When npm itself dies without forwarding (SIGKILL, a supervisor killing only
 * the pid it knows), the service is re-parented: it then stops as on SIGTERM rather than run on
 * unsupervised (issue 44 point 2).
 */
export function watchParent(onOrphaned: () => void): void {
  // process.ppid is read once at startup in Node 20, so the parent's pid is probed instead.
  const parent = process.ppid;
  const timer = setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') return;
      clearInterval(timer);
      onOrphaned();
    }
  }, 1000);
  timer.unref();
}
