export * from './ids';
export * from './message';
export * from './llm-input';
export * from './llm-events';
export * from './provider';
export * from './session';
export * from './agent';
export * from './project';
