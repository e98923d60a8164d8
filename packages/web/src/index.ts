import { fileURLToPath } from 'node:url';

/** The built single-page application (`npm run build -w @conveyor/web`, run by `npm install`). */
export const WEB_BUILD_DIRECTORY = fileURLToPath(new URL('../build/', import.meta.url));
