import { describe, expect, it } from 'vitest';
import { ModelDownload } from '../../../../src/state/settings/model-download';

describe('ModelDownload', () => {
  it('names the large file still on its way, not the small one that finished last', () => {
    const download = new ModelDownload();
    download.update({ file: 'config.json', status: 'initiate' });
    download.update({ file: 'onnx/model.onnx', status: 'initiate' });
    download.update({ file: 'config.json', status: 'done' });
    download.update({ file: 'tokenizer.json', status: 'initiate' });
    const view = download.update({ file: 'tokenizer.json', status: 'done' });
    expect(view.label).toBe('Downloading onnx/model.onnx');
  });

  it('measures progress in bytes over every file whose size is known', () => {
    const download = new ModelDownload();
    expect(download.update({ file: 'config.json', status: 'initiate' }).fraction).toBeNull();
    download.update({ file: 'config.json', status: 'progress', loadedBytes: 100, totalBytes: 100 });
    const view = download.update({
      file: 'onnx/model.onnx',
      status: 'progress',
      percent: 25,
      loadedBytes: 225,
      totalBytes: 900,
    });
    expect(view.fraction).toBeCloseTo(325 / 1000);
    const done = download.update({ file: 'onnx/model.onnx', status: 'done' });
    expect(done.fraction).toBe(1);
  });

  it('says ready once every file is done and the model is built', () => {
    const download = new ModelDownload();
    download.update({ file: 'config.json', status: 'initiate' });
    download.update({ file: 'config.json', status: 'done' });
    expect(download.update({ file: '', status: 'ready' }).label).toBe('Ready');
  });
});
