// Preloaded (node --import) into each app the demo and `npm run operator` start. The apps run in process
// groups of their own, so a terminal's Ctrl-C reaches only the parent, which stops each app with one
// signal; a second signal would mean "exit without draining". Being outside the terminal's group, an app
// would outlive a parent that dies without stopping it (SIGKILL, a closed terminal): when its parent is
// gone (it is re-parented), it stops itself the graceful way.
const parent = process.ppid;
const CHECK_EVERY_MS = 500;

const check = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(check);
  process.kill(process.pid, 'SIGTERM');
}, CHECK_EVERY_MS);
// Never what keeps the app alive.
check.unref();
