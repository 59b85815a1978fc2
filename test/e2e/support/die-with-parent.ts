// Preloaded (node --import) into every process the e2e harness starts: if the test process dies
// without cleaning up (crash, SIGKILL by a runner timeout), its children notice they were re-parented
// and exit instead of running on. The interval is unref'd: it never keeps a process alive.
const parent = process.ppid;
const timer = setInterval(() => {
  if (process.ppid !== parent) process.exit(70);
}, 500);
timer.unref();
