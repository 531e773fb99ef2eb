import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { isEnvelope } from '../helpers/http.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let app: TestApp;
let db: FreshDatabase;
let call: Call;
let viewer: Call;
let nobody: Call;

test.before(async () => {
  db = await zmDatabase('ai');
  await addUser(db, 'admin', { System: 'Edit' });
  await addUser(db, 'viewer', { System: 'View' });
  await addUser(db, 'nobody', { Monitors: 'Edit', Control: 'Edit' });
  app = await startTestApp({ db, env: { APP_AUTH__RATE_LIMIT__ENABLED: 'false' } });
  call = caller(app, await login(app, 'admin'));
  viewer = caller(app, await login(app, 'viewer'));
  nobody = caller(app, await login(app, 'nobody'));
});
test.after.always(async () => app?.close());

const dataset = async (name: string, extra: object = {}) => {
  const res = await call('POST', '/ai/datasets', { name, num_classes: 2, ...extra });
  if (res.status !== 201) throw new Error(`create dataset: ${res.status} ${res.text}`);
  return res.body as { id: number; name: string };
};

test.serial('datasets: create, get, patch, list, delete', async (t) => {
  const created = await call('POST', '/ai/datasets', {
    name: 'COCO-t',
    description: 'objects',
    version: '2017',
    num_classes: 80,
    junk: 1,
  });
  t.is(created.status, 201);
  t.deepEqual(created.body, {
    id: created.body.id,
    name: 'COCO-t',
    description: 'objects',
    version: '2017',
    num_classes: 80,
  });
  const id = created.body.id;
  t.deepEqual((await call('GET', `/ai/datasets/${id}`)).body, created.body);
  const patched = await call('PATCH', `/ai/datasets/${id}`, { version: null, num_classes: 81 });
  t.is(patched.status, 200);
  t.deepEqual(patched.body, { ...created.body, version: null, num_classes: 81 });
  const list = await call('GET', '/ai/datasets?page=1&page_size=1000&per_page=5');
  t.is(list.status, 200);
  t.true(list.body.items.some((d: any) => d.id === id && d.num_classes === 81));
  t.is(list.body.per_page, 1000);
  t.is((await call('DELETE', `/ai/datasets/${id}`)).status, 204);
  t.is((await call('GET', `/ai/datasets/${id}`)).status, 404);
  t.is((await call('PATCH', `/ai/datasets/${id}`, { num_classes: 1 })).status, 404);
  t.is((await call('DELETE', `/ai/datasets/${id}`)).status, 404);
});

test('datasets: duplicate name → 409; validation → 400 naming the field', async (t) => {
  await dataset('dup-ds');
  const dup = await call('POST', '/ai/datasets', { name: 'dup-ds', num_classes: 1 });
  t.is(dup.status, 409);
  t.is(dup.body.kind, 'CONFLICT_ERROR');
  const long = await call('POST', '/ai/datasets', { name: 'n'.repeat(65), num_classes: 1 });
  t.is(long.status, 400);
  t.deepEqual(fields(long.body), ['name']);
  const version = await call('POST', '/ai/datasets', { name: 'v', version: 'v'.repeat(33), num_classes: 1 });
  t.is(version.status, 400);
  t.deepEqual(fields(version.body), ['version']);
  const missing = await call('POST', '/ai/datasets', { name: 'no-count' });
  t.is(missing.status, 400);
  t.true(fields(missing.body).includes('num_classes'));
  const negative = await call('POST', '/ai/datasets', { name: 'neg', num_classes: -1 });
  t.is(negative.status, 400);
  t.true(isEnvelope(negative.body));
  t.is((await call('GET', '/ai/datasets/abc')).status, 400);
  t.is((await call('GET', '/ai/datasets/-1')).status, 400);
});

test('deleting a dataset removes its object classes and detaches its models, in one go', async (t) => {
  const ds = await dataset('cascade-ds');
  const other = await dataset('cascade-other');
  const c1 = await call('POST', '/ai/object-classes', { dataset_id: ds.id, class_name: 'person', class_index: 0 });
  const c2 = await call('POST', '/ai/object-classes', { dataset_id: ds.id, class_name: 'car', class_index: 1 });
  const keep = await call('POST', '/ai/object-classes', { dataset_id: other.id, class_name: 'person', class_index: 0 });
  const model = await call('POST', '/ai/models', { name: 'cascade-model', dataset_id: ds.id });
  t.is(c1.status, 201);
  t.is(c2.status, 201);
  t.is(model.body.dataset_name, 'cascade-ds');
  t.is((await call('DELETE', `/ai/datasets/${ds.id}`)).status, 204);
  t.is((await call('GET', `/ai/object-classes/${c1.body.id}`)).status, 404);
  t.is((await call('GET', `/ai/object-classes/${c2.body.id}`)).status, 404);
  t.is((await call('GET', `/ai/object-classes/${keep.body.id}`)).status, 200);
  const rows = await db.db.query<{ n: number }>(
    'SELECT COUNT(*) AS n FROM AI_Object_Classes WHERE DatasetId = ?',
    [ds.id],
    db.name,
  );
  t.is(Number(rows[0].n), 0);
  const detached = await call('GET', `/ai/models/${model.body.id}`);
  t.is(detached.status, 200);
  t.is(detached.body.dataset_id, null);
  t.is(detached.body.dataset_name, null);
});

test('models: CRUD with the dataset name resolved on create, get, list and patch', async (t) => {
  const ds = await dataset('yolo-labels');
  const ds2 = await dataset('other-labels');
  const created = await call('POST', '/ai/models', {
    name: 'yolov8n',
    description: 'small',
    model_path: '/models/yolov8n.onnx',
    version: '8',
    dataset_id: ds.id,
    enabled: 1,
  });
  t.is(created.status, 201);
  t.deepEqual(created.body, {
    id: created.body.id,
    name: 'yolov8n',
    description: 'small',
    model_path: '/models/yolov8n.onnx',
    framework: 'ONNX',
    version: '8',
    dataset_id: ds.id,
    dataset_name: 'yolo-labels',
    enabled: 1,
  });
  const id = created.body.id;
  t.deepEqual((await call('GET', `/ai/models/${id}`)).body, created.body);
  const list = await call('GET', '/ai/models?page_size=1000');
  t.deepEqual(
    list.body.items.find((m: any) => m.id === id),
    created.body,
  );
  const moved = await call('PATCH', `/ai/models/${id}`, { dataset_id: ds2.id, framework: 'PyTorch', enabled: 0 });
  t.is(moved.status, 200);
  t.like(moved.body, {
    dataset_id: ds2.id,
    dataset_name: 'other-labels',
    framework: 'PyTorch',
    enabled: 0,
    name: 'yolov8n',
  });
  const cleared = await call('PATCH', `/ai/models/${id}`, { dataset_id: null, model_path: null });
  t.like(cleared.body, { dataset_id: null, dataset_name: null, model_path: null, version: '8' });
  const bare = await call('POST', '/ai/models', { name: 'bare-model' });
  t.like(bare.body, { framework: 'ONNX', enabled: 0, dataset_id: null, dataset_name: null, description: null });
  t.is((await call('DELETE', `/ai/models/${id}`)).status, 204);
  t.is((await call('GET', `/ai/models/${id}`)).status, 404);
  t.is((await call('DELETE', `/ai/models/${id}`)).status, 404);
  t.is((await call('PATCH', `/ai/models/${id}`, { enabled: 1 })).status, 404);
});

test('models: unknown dataset → 400 naming dataset_id (create and patch); bad enum, duplicates, too long', async (t) => {
  const res = await call('POST', '/ai/models', { name: 'orphan', dataset_id: 999999 });
  t.is(res.status, 400);
  t.is(res.body.kind, 'INVALID_INPUT_ERROR');
  t.deepEqual(fields(res.body), ['dataset_id']);
  const ok = await call('POST', '/ai/models', { name: 'm-valid' });
  const patch = await call('PATCH', `/ai/models/${ok.body.id}`, { dataset_id: 999999 });
  t.is(patch.status, 400);
  t.deepEqual(fields(patch.body), ['dataset_id']);
  t.is((await call('POST', '/ai/models', { name: 'fw', framework: 'Caffe' })).status, 400);
  t.is((await call('POST', '/ai/models', { name: 'en', enabled: 2 })).status, 400);
  const path = await call('POST', '/ai/models', { name: 'p', model_path: 'x'.repeat(256) });
  t.is(path.status, 400);
  t.deepEqual(fields(path.body), ['model_path']);
  t.is((await call('POST', '/ai/models', { name: 'm-valid' })).status, 409);
  t.is((await call('POST', '/ai/models', { name: 'huge', dataset_id: 99999999999 })).status, 400);
});

test('object classes: CRUD, dataset filter, unknown dataset → 400, duplicate → 409', async (t) => {
  const a = await dataset('classes-a');
  const b = await dataset('classes-b');
  const created = await call('POST', '/ai/object-classes', {
    dataset_id: a.id,
    class_name: 'dog',
    class_index: 16,
    description: 'woof',
  });
  t.is(created.status, 201);
  t.deepEqual(created.body, {
    id: created.body.id,
    dataset_id: a.id,
    class_name: 'dog',
    class_index: 16,
    description: 'woof',
  });
  await call('POST', '/ai/object-classes', { dataset_id: a.id, class_name: 'cat', class_index: 15 });
  await call('POST', '/ai/object-classes', { dataset_id: b.id, class_name: 'dog', class_index: 0 });
  const onlyA = await call('GET', `/ai/object-classes?dataset_id=${a.id}`);
  t.is(onlyA.status, 200);
  t.is(onlyA.body.total, 2);
  t.deepEqual(
    onlyA.body.items.map((c: any) => c.class_name),
    ['cat', 'dog'],
  ); // by class index
  t.true(onlyA.body.items.every((c: any) => c.dataset_id === a.id));
  const all = await call('GET', '/ai/object-classes?page_size=1000');
  t.true(all.body.total >= 3);
  t.is((await call('GET', '/ai/object-classes?dataset_id=999999')).body.total, 0);
  t.is((await call('GET', '/ai/object-classes?dataset_id=-1')).status, 400);
  t.is((await call('GET', '/ai/object-classes?dataset_id=x')).status, 400);

  const id = created.body.id;
  t.deepEqual((await call('GET', `/ai/object-classes/${id}`)).body, created.body);
  const patched = await call('PATCH', `/ai/object-classes/${id}`, { class_index: 17, description: null });
  t.deepEqual(patched.body, { ...created.body, class_index: 17, description: null });
  const unknown = await call('POST', '/ai/object-classes', { dataset_id: 999999, class_name: 'x', class_index: 0 });
  t.is(unknown.status, 400);
  t.deepEqual(fields(unknown.body), ['dataset_id']);
  t.is((await call('PATCH', `/ai/object-classes/${id}`, { dataset_id: 999999 })).status, 400);
  const dup = await call('POST', '/ai/object-classes', { dataset_id: a.id, class_name: 'cat', class_index: 3 });
  t.is(dup.status, 409);
  const missing = await call('POST', '/ai/object-classes', { class_name: 'x', class_index: 0 });
  t.is(missing.status, 400);
  t.true(fields(missing.body).includes('dataset_id'));
  const long = await call('POST', '/ai/object-classes', {
    dataset_id: a.id,
    class_name: 'c'.repeat(65),
    class_index: 0,
  });
  t.deepEqual(fields(long.body), ['class_name']);
  t.is((await call('DELETE', `/ai/object-classes/${id}`)).status, 204);
  t.is((await call('GET', `/ai/object-classes/${id}`)).status, 404);
  t.is((await call('DELETE', `/ai/object-classes/${id}`)).status, 404);
  t.is((await call('PATCH', `/ai/object-classes/${id}`, { class_index: 1 })).status, 404);
});

test('paging: defaults, the 1000 cap and bad values on every AI list', async (t) => {
  const ds = await dataset('paging-ds');
  for (let i = 0; i < 3; i++)
    await call('POST', '/ai/object-classes', { dataset_id: ds.id, class_name: `p${i}`, class_index: i });
  const second = await call('GET', `/ai/object-classes?dataset_id=${ds.id}&page=2&page_size=2`);
  t.deepEqual(
    { ...second.body, items: second.body.items.map((c: any) => c.class_name) },
    { items: ['p2'], total: 3, per_page: 2, current_page: 2, last_page: 2 },
  );
  for (const list of ['/ai/datasets', '/ai/models', '/ai/object-classes']) {
    t.is((await call('GET', list)).body.per_page, 25, list);
    t.is((await call('GET', `${list}?page_size=1000`)).status, 200, list);
    for (const q of ['page_size=1001', 'page_size=abc', 'page=-1']) {
      const res = await call('GET', `${list}?${q}`);
      t.is(res.status, 400, `${list}?${q}`);
      t.is(res.body.kind, 'INVALID_INPUT_ERROR');
    }
  }
});

test('the AI registry is gated on System: View reads, Edit writes, none is refused', async (t) => {
  t.is((await viewer('GET', '/ai/models')).status, 200);
  const write = await viewer('POST', '/ai/datasets', { name: 'nope', num_classes: 1 });
  t.is(write.status, 403);
  t.is(write.body.kind, 'PERMISSION_DENIED_ERROR');
  for (const path of ['/ai/datasets', '/ai/models', '/ai/object-classes']) {
    t.is((await nobody('GET', path)).status, 403, path);
  }
});
