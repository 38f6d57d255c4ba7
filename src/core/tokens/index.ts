export * from './encoding';
export * from './calibration';
export * from './image-tokens';
export * from './count-in-steps';
