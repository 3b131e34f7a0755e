// Entry of the `dragoman` command (bin/dragoman.js, `npm start`, `node --import tsx src/cli/main.ts`).
// Commands and their dispatch live in dispatch.ts, which tests import without running anything.
import { main } from './dispatch.ts';

// `dragoman plans list | head -1`: the reader left, which is not an error of ours.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

const code = await main(process.argv.slice(2));
// -1: the command keeps the process alive (serve); every other command ends here with its exit code.
if (code !== -1) process.exitCode = code;
