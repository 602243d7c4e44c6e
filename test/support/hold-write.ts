// Opens a store file in SQLite's default (rollback) mode, takes the write lock, says "holding" on
// stdout, and lets go after the given milliseconds: another process setting up a new store at
// that moment, as test/eventstore/sqlite-adapter.int.test.ts has it.
import { DatabaseSync } from 'node:sqlite';

const [file, holdMs] = process.argv.slice(2);
const db = new DatabaseSync(file!);
db.exec('BEGIN IMMEDIATE');
db.exec('CREATE TABLE IF NOT EXISTS setting_up (x)');
process.stdout.write('holding\n');
setTimeout(() => {
  db.exec('COMMIT');
  db.close();
}, Number(holdMs));
