export * from './port';
export * from './errors';
export * from './ids';
