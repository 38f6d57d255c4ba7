export * from './chunk-text';
export * from './chunk-location';
export * from './bm25-index';
export * from './vector-index';
export * from './fuse-rankings';
export * from './top-k';
export * from './retrieve';
export * from './search-block';
