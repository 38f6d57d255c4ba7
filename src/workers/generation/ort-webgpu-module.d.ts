/** onnxruntime-web/webgpu under the name vite.config.ts gives it (ORT_WEBGPU_IMPORT). */
declare module 'carrel-ort-webgpu' {
  export * from 'onnxruntime-web';
}
