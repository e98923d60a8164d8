import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built single-page application (`npm run build -w @conveyor/web`, run by `npm install`). */
export const WEB_BUILD_DIRECTORY = fileURLToPath(new URL('../build/', import.meta.url));

/** Whether the application has been built: `conveyor serve` says how to build it when it has not. */
export function isWebBuilt(): boolean {
  return existsSync(`${WEB_BUILD_DIRECTORY}index.html`);
}
