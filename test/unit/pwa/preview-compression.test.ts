import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preview, type PreviewServer } from 'vite';
import { servePlainOverLoopback } from '../../../vite.config';

/** A built folder with one script large enough for `vite preview` to compress. */
async function makeBuild(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'carrel-preview-'));
  await mkdir(join(root, 'dist', 'assets'), { recursive: true });
  await writeFile(join(root, 'dist', 'index.html'), '<!doctype html><title>t</title>');
  await writeFile(join(root, 'dist', 'assets', 'app.js'), `export const text = ${JSON.stringify('carrel '.repeat(4_000))};\n`);
  return root;
}

async function startPreview(root: string, withPlugin: boolean): Promise<PreviewServer> {
  return preview({
    root,
    configFile: false,
    logLevel: 'silent',
    plugins: withPlugin ? [servePlainOverLoopback()] : [],
    preview: { port: 0, host: '127.0.0.1' },
  });
}

interface RawAnswer {
  status: number;
  encoding: string | undefined;
  body: string;
}

/** The script as the server sent it (node:http does not undo a compression, unlike fetch). */
function fetchScript(server: PreviewServer): Promise<RawAnswer> {
  const url = server.resolvedUrls?.local[0];
  if (url === undefined) throw new Error('The preview server reported no address.');
  return new Promise((resolve, reject) => {
    request(new URL('assets/app.js', url), { headers: { 'accept-encoding': 'gzip, br' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, encoding: response.headers['content-encoding'], body: Buffer.concat(chunks).toString('utf8') }),
      );
    })
      .on('error', reject)
      .end();
  });
}

describe('the preview server over loopback', () => {
  let root = '';
  beforeAll(async () => {
    root = await makeBuild();
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('compresses scripts without the plugin (what the plugin undoes)', async () => {
    const server = await startPreview(root, false);
    try {
      const response = await fetchScript(server);
      expect(response.encoding).toBe('gzip');
    } finally {
      await server.close();
    }
  });

  it('answers a request from this machine uncompressed, the script whole', async () => {
    const server = await startPreview(root, true);
    try {
      const response = await fetchScript(server);
      expect(response.status).toBe(200);
      expect(response.encoding).toBeUndefined();
      expect(response.body).toContain('carrel carrel');
    } finally {
      await server.close();
    }
  });
});
