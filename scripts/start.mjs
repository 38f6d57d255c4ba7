// `npm start`: install what is missing, build, serve the production build and print its URL.
// The server runs inside this process through Vite's API, so Ctrl+C or SIGTERM ends it with the
// process and the port is free again at once. The build runs as `vite build` does on the command
// line (Vite's API build splits chunks differently from the CLI's for this config).
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { ensureInstall } from './ensure-install.mjs';

const HOST = '127.0.0.1';

function portTakenMessage(port) {
  return (
    `Port ${port} is already in use (another \`npm start\`, or another program).\n` +
    `Stop it, or choose another port: PORT=${port + 1} npm start`
  );
}

/** Whether the port can be listened on now, checked before the build so a clash fails fast. */
function isPortFree(port) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, HOST, () => probe.close(() => resolve(true)));
  });
}

ensureInstall();
// Vite is imported only after the install, since a fresh clone has no node_modules yet.
const { preview } = await import('vite');

const port = Number(process.env.PORT ?? 4173);
if (!Number.isInteger(port) || port <= 0 || port > 65_535) {
  console.error(`PORT must be a port number, not "${process.env.PORT}".`);
  process.exit(2);
}

if (!(await isPortFree(port))) {
  console.error(portTakenMessage(port));
  process.exit(1);
}

console.log('Building…');
const built = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'error'], {
  stdio: 'inherit',
});
if (built.status !== 0) process.exit(built.status ?? 1);

let server;
try {
  server = await preview({ preview: { port, strictPort: true, host: HOST }, logLevel: 'warn' });
} catch (error) {
  // Taken between the check and now.
  if (/already in use/i.test(String(error?.message))) {
    console.error(portTakenMessage(port));
    process.exit(1);
  }
  throw error;
}

console.log(`\nCarrel is running at http://localhost:${port}\n(Ctrl+C to stop)`);

let closing = false;
async function stop(signal) {
  if (closing) return;
  closing = true;
  await server.close();
  // The conventional exit status of a process ended by this signal.
  process.exit(128 + ({ SIGHUP: 1, SIGINT: 2 }[signal] ?? 15));
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stop(signal));
// `npm start` runs this script through a shell, and a SIGTERM sent to npm ends that shell
// without passing the signal on: when this process finds itself orphaned, it stops too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stop('SIGTERM');
}, 500).unref();
