export * from './encoding';
export * from './calibration';
export * from './image-tokens';
