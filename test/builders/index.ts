export * from './clock';
export * from './messages';
export * from './tokens';
export * from './context-input';
export * from './providers';
