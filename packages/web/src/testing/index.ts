export * from './product.js';
export * from './browser.js';
