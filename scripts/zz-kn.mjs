import { transformSync } from 'esbuild';
import { readFileSync } from 'node:fs';
const { code } = transformSync(readFileSync(process.argv[2], 'utf8'), { loader: 'ts', keepNames: true, format: 'esm' });
const i = code.indexOf(process.argv[3]); console.log(code.slice(i, i + 300));
