// The package version, read once through the package's own name (package.json exports it).
import { createRequire } from 'node:module';

export const VERSION: string = (createRequire(import.meta.url)('jsonmend/package.json') as { version: string }).version;
