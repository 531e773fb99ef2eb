// The information_schema -> schema.prisma generator (scripts/introspect.ts and its helpers) on a
// small hand-made schema with the awkward cases, checked by snippet and by `prisma validate`.
import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createConnection } from 'mariadb';
import { readSchema } from '../../scripts/prisma-read-schema.js';
import { renderSchema } from '../../scripts/prisma-render.js';
import { freshDatabase } from '../helpers/mariadb.js';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const DDL = `
CREATE TABLE Parents (
  Id int(10) unsigned NOT NULL AUTO_INCREMENT,
  Name varchar(64) NOT NULL DEFAULT '',
  Mode enum('None','Remote HTTP','KeyFrames+Ondemand','') NOT NULL DEFAULT 'Remote HTTP',
  Enabled tinyint(3) unsigned NOT NULL DEFAULT 1,
  Flag tinyint(1) NOT NULL DEFAULT 0,
  Ratio decimal(10,2) NOT NULL DEFAULT 0.00,
  Big bigint(20) unsigned DEFAULT NULL,
  Note tinytext,
  Quote varchar(16) NOT NULL DEFAULT 'it''s "x"',
  Created datetime(3) DEFAULT current_timestamp(3),
  Seen datetime NOT NULL,
  Score float NOT NULL DEFAULT 0.5,
  PRIMARY KEY (Id),
  UNIQUE KEY Parents_Name_idx (Name(16)),
  KEY Parents_Mode_Enabled_idx (Mode, Enabled)
);
CREATE TABLE Pairs (A int(11) NOT NULL, B bigint(20) unsigned NOT NULL, Label text, PRIMARY KEY (A, B));
CREATE TABLE Children (
  Id bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  ParentId int(10) unsigned DEFAULT NULL,
  PRIMARY KEY (Id),
  KEY Children_ParentId_idx (ParentId),
  CONSTRAINT Children_ibfk_1 FOREIGN KEY (ParentId) REFERENCES Parents (Id) ON DELETE CASCADE ON UPDATE RESTRICT
);
CREATE TABLE Links (
  Id int(10) unsigned NOT NULL AUTO_INCREMENT,
  FromId int(10) unsigned NOT NULL,
  ToId int(10) unsigned DEFAULT NULL,
  PRIMARY KEY (Id),
  KEY (FromId), KEY (ToId),
  CONSTRAINT Links_from FOREIGN KEY (FromId) REFERENCES Parents (Id),
  CONSTRAINT Links_to FOREIGN KEY (ToId) REFERENCES Parents (Id) ON DELETE SET NULL
);
CREATE TABLE Nodes (
  Id int(10) unsigned NOT NULL,
  ParentId int(10) unsigned DEFAULT NULL,
  PRIMARY KEY (Id),
  CONSTRAINT Nodes_parent FOREIGN KEY (ParentId) REFERENCES Nodes (Id) ON DELETE CASCADE
);
CREATE TABLE Profiles (
  ParentId int(10) unsigned NOT NULL,
  PRIMARY KEY (ParentId),
  CONSTRAINT Profiles_parent FOREIGN KEY (ParentId) REFERENCES Parents (Id)
);
CREATE TABLE Keyless (Value int(11) DEFAULT NULL, Note varchar(10) DEFAULT NULL);
CREATE VIEW ParentNames AS SELECT Name FROM Parents;
`;

const SOURCE = ['Source: test/55 hand-made schema.'];

/** Creates the statements in a fresh database; returns its URL (as its user) and the rendered schema. */
async function build(statements: string[]): Promise<{ url: string; text: string }> {
  const fresh = await freshDatabase('introspect');
  await fresh.db.exec(['SET FOREIGN_KEY_CHECKS = 0', ...statements].join(';\n'), fresh.name);
  const conn = await createConnection(fresh.userConfig);
  try {
    return { url: fresh.userUrl, text: renderSchema(await readSchema(conn, fresh.name), { source: SOURCE }) };
  } finally {
    await conn.end();
  }
}

const statements = DDL.split(/;\s*\n/)
  .map((s) => s.trim())
  .filter(Boolean);
let rendered: Promise<{ url: string; text: string }> | null = null;

/** The hand-made schema, created once per file, read back and rendered. */
async function schemaText(): Promise<string> {
  rendered ??= build(statements);
  return (await rendered).text;
}

/** Lines with runs of spaces collapsed, so the column alignment does not matter. */
const squash = (text: string) => text.replace(/[ \t]+/g, ' ');

function block(text: string, kind: 'model' | 'enum', name: string): string {
  const match = new RegExp(`^${kind} ${name} \\{\\n[\\s\\S]*?^\\}`, 'm').exec(text);
  if (!match) throw new Error(`${kind} ${name} not found`);
  return squash(match[0]);
}

function hasLines(t: import('ava').ExecutionContext, text: string, lines: string[]): void {
  for (const line of lines) t.true(text.includes(squash(line)), `missing: ${line}\n--- in:\n${text}`);
}

test('columns: native types, unsigned, Boolean only for signed tinyint(1), defaults, DateTime always optional', async (t) => {
  hasLines(t, block(await schemaText(), 'model', 'Parents'), [
    '  Id Int @id @default(autoincrement()) @db.UnsignedInt',
    '  Name String @default("") @db.VarChar(64)',
    '  Mode Parents_Mode @default(Remote_HTTP)',
    '  Enabled Int @default(1) @db.UnsignedTinyInt',
    '  Flag Boolean @default(false)',
    '  Ratio Decimal @default(0.00) @db.Decimal(10, 2)',
    '  Big BigInt? @db.UnsignedBigInt',
    '  Note String? @db.TinyText',
    '  Quote String @default("it\'s \\"x\\"") @db.VarChar(16)',
    '  Created DateTime? @default(dbgenerated("current_timestamp(3)")) @db.DateTime(3)',
    '  Seen DateTime? @db.DateTime(0)',
    '  Score Float @default(0.5) @db.Float',
  ]);
});

test('enums are named Table_Column, with @map for values that are not identifiers', async (t) => {
  t.is(
    block(await schemaText(), 'enum', 'Parents_Mode'),
    squash(
      [
        'enum Parents_Mode {',
        '  None',
        '  Remote_HTTP @map("Remote HTTP")',
        '  KeyFrames_Ondemand @map("KeyFrames+Ondemand")',
        '  EMPTY_ENUM_VALUE @map("")',
        '}',
      ].join('\n'),
    ),
  );
});

test('keys: composite @@id, unique with prefix length, named indexes', async (t) => {
  const text = await schemaText();
  hasLines(t, block(text, 'model', 'Parents'), [
    '  @@index([Mode, Enabled], map: "Parents_Mode_Enabled_idx")',
    '  @@unique([Name(length: 16)], map: "Parents_Name_idx")',
  ]);
  hasLines(t, block(text, 'model', 'Pairs'), ['  A Int', '  B BigInt @db.UnsignedBigInt', '  @@id([A, B])']);
});

test('relations: named after the constraint, actions and map, back-relations, 1:1, self and double relations', async (t) => {
  const text = await schemaText();
  hasLines(t, block(text, 'model', 'Children'), [
    '  Parents Parents? @relation("Children_ibfk_1", fields: [ParentId], references: [Id], onDelete: Cascade, onUpdate: Restrict, map: "Children_ibfk_1")',
  ]);
  hasLines(t, block(text, 'model', 'Links'), [
    '  Parents_via_FromId Parents @relation("Links_from", fields: [FromId], references: [Id], onDelete: Restrict, onUpdate: Restrict, map: "Links_from")',
    '  Parents_via_ToId Parents? @relation("Links_to", fields: [ToId], references: [Id], onDelete: SetNull, onUpdate: Restrict, map: "Links_to")',
  ]);
  hasLines(t, block(text, 'model', 'Parents'), [
    '  Children Children[] @relation("Children_ibfk_1")',
    '  Links_by_FromId Links[] @relation("Links_from")',
    '  Links_by_ToId Links[] @relation("Links_to")',
    '  Profiles Profiles? @relation("Profiles_parent")',
  ]);
  hasLines(t, block(text, 'model', 'Nodes'), [
    '  Nodes_via_ParentId Nodes? @relation("Nodes_parent", fields: [ParentId], references: [Id], onDelete: Cascade, onUpdate: Restrict, map: "Nodes_parent")',
    '  Nodes_by_ParentId Nodes[] @relation("Nodes_parent")',
  ]);
});

test('a table without a key is @@ignore; views are skipped', async (t) => {
  const text = await schemaText();
  hasLines(t, block(text, 'model', 'Keyless'), ['  Value Int?', '  Note String? @db.VarChar(10)', '  @@ignore']);
  t.false(/^model ParentNames /m.test(text));
});

test('the output does not depend on creation order, and --url gives the same through the CLI', async (t) => {
  const text = await schemaText();
  // Tables created the other way round get other internal ids and information_schema order.
  const reversed = [...statements].reverse().sort((a, b) => Number(a.includes('VIEW')) - Number(b.includes('VIEW')));
  t.is((await build(reversed)).text, text);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', path.join(repo, 'scripts', 'introspect.ts'), '--url', (await rendered)!.url, '--stdout'],
    { cwd: repo },
  );
  const body = (schema: string) => schema.slice(schema.indexOf('generator client'));
  t.is(body(stdout), body(text));
  t.regex(stdout, /^\/\/ Source: database `introspect_\w+`, introspected with --url\.$/m);
});

test('`prisma validate` accepts the output and `prisma format` leaves it as it is', async (t) => {
  const text = await schemaText();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'zmgate-prisma-'));
  try {
    const file = path.join(dir, 'schema.prisma');
    await writeFile(file, text);
    t.regex(await prisma('validate', file), /is valid/);
    await prisma('format', file);
    t.is(await readFile(file, 'utf8'), text);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  t.false(/\d+ ms|127\.0\.0\.1|:\d{4,5}\b/.test(text), 'no times, hosts or ports in the output');
});

/** Runs the Prisma CLI offline (the stub schema engine) on a schema file; returns its output. */
async function prisma(command: string, schema: string): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(
    path.join(repo, 'node_modules', '.bin', 'prisma'),
    [command, '--schema', schema],
    {
      cwd: repo,
      env: {
        ...process.env,
        PRISMA_SCHEMA_ENGINE_BINARY: path.join(repo, 'prisma', 'offline-schema-engine.sh'),
        CHECKPOINT_DISABLE: '1',
      },
    },
  );
  return stdout + stderr;
}
