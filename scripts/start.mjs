// `npm start`: install what is missing, build, serve the production build and print its URL.
import { spawn, spawnSync } from 'node:child_process';
import { ensureInstall } from './ensure-install.mjs';

ensureInstall();
const port = process.env.PORT ?? '4173';
const build = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const preview = spawn('npx', ['vite', 'preview', '--port', port, '--strictPort', '--host', '127.0.0.1'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let announced = false;
preview.stdout.on('data', (chunk) => {
  if (!announced && /Local/.test(String(chunk))) {
    announced = true;
    console.log(`\nCarrel is running at http://localhost:${port}\n(Ctrl+C to stop)`);
  }
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => preview.kill(signal));
preview.on('exit', (code) => process.exit(code ?? 0));
