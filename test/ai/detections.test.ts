// AI_Detection_Settings (Monitors + row ACL, site-wide rows) and AI_Detections (Events + row ACL
// through the event's monitor); then the OpenAPI listing of every extra family: operationIds in
// the reference's style, scopes, paging parameters and snake_case fields.
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startAppWithAcl, type AclApp } from '../helpers/acl-app.js';
import { objectSchema, servedDocument } from '../helpers/coverage.js';
import { addUser, caller, fields, login, type Call } from '../helpers/rest.js';
import { zmDatabase } from '../helpers/zmdb.js';
import type { FreshDatabase } from '../helpers/mariadb.js';

let db: FreshDatabase;
let app: TestApp;
let aclApp: AclApp;
let admin: Call;
let monitorsView: Call;
let eventsView: Call;
let limited: Call;
let doc: any;
const ids: Record<string, number> = {};

async function insert(table: string, row: Record<string, unknown>): Promise<number> {
  const cols = Object.keys(row);
  await db.db.query(
    `INSERT INTO \`${table}\` (${cols.map((c) => `\`${c}\``).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
    Object.values(row),
    db.name,
  );
  const [last] = await db.db.query<{ Id: number }>(`SELECT MAX(Id) AS Id FROM \`${table}\``, [], db.name);
  return Number(last.Id);
}

test.before(async () => {
  db = await zmDatabase('aidet');
  // Berlin is +01:00 in November: detection times go out as UTC instants.
  await insert('Config', { Name: 'ZM_TIMEZONE', Value: 'Europe/Berlin', Type: 'string' });
  for (const name of ['m1', 'm2', 'm3']) ids[name] = await insert('Monitors', { Name: name });
  const dataset = await insert('AI_Datasets', { Name: 'COCO', NumClasses: 2 });
  ids.person = await insert('AI_Object_Classes', { DatasetId: dataset, ClassName: 'person', ClassIndex: 0 });
  ids.car = await insert('AI_Object_Classes', { DatasetId: dataset, ClassName: 'car', ClassIndex: 2 });
  for (const m of ['m1', 'm2', 'm3'])
    ids[`e${m.slice(1)}`] = await insert('Events', { MonitorId: ids[m], StateId: 1, Name: `event of ${m}` });
  ids.f1 = await insert('Frames', { EventId: ids.e1, FrameId: 1 });
  ids.f3 = await insert('Frames', { EventId: ids.e3, FrameId: 1 });
  await addUser(db, 'admin', { Monitors: 'Edit', Events: 'Edit' });
  await addUser(db, 'monview', { Monitors: 'View' });
  await addUser(db, 'evview', { Events: 'View' });
  await addUser(db, 'limited', { Monitors: 'Edit', Events: 'Edit' });
  const env = { APP_AUTH__RATE_LIMIT__ENABLED: 'false' };
  app = await startTestApp({ db, env });
  admin = caller(app, await login(app, 'admin'));
  monitorsView = caller(app, await login(app, 'monview'));
  eventsView = caller(app, await login(app, 'evview'));
  // m1 editable, m2 view-only, m3 hidden.
  aclApp = await startAppWithAcl(
    db,
    { scope: async () => ({ visible: new Set([ids.m1, ids.m2]), editable: new Set([ids.m1]) }) },
    env,
  );
  limited = caller(aclApp, await login(aclApp, 'limited'));
  doc = await servedDocument(app.url);
});
test.after.always(async () => {
  await app?.close();
  await aclApp?.close();
});

// ---------------------------------------------------------------- detection settings

test.serial('detection settings: monitor and site-wide rows; colour normalised; duplicates 409', async (t) => {
  const created = await admin('POST', '/ai/detection-settings', {
    monitor_id: ids.m1,
    object_class_id: ids.person,
    confidence_threshold: 70,
    box_color: '#00ff00',
  });
  t.is(created.status, 201);
  t.deepEqual(created.body, {
    id: created.body.id,
    monitor_id: ids.m1,
    object_class_id: ids.person,
    enabled: 1,
    report_detection: 1,
    confidence_threshold: 70,
    box_color: '#00FF00',
  });
  t.deepEqual((await monitorsView('GET', `/ai/detection-settings/${created.body.id}`)).body, created.body);
  const patched = await admin('PATCH', `/ai/detection-settings/${created.body.id}`, {
    enabled: false,
    report_detection: 0,
    monitor_id: ids.m2,
  });
  t.like(patched.body, { enabled: 0, report_detection: 0, monitor_id: ids.m1, confidence_threshold: 70 });
  t.is(
    (await admin('POST', '/ai/detection-settings', { monitor_id: ids.m1, object_class_id: ids.person })).status,
    409,
  );
  const global = await admin('POST', '/ai/detection-settings', { object_class_id: ids.car });
  t.is(global.status, 201);
  t.like(global.body, { monitor_id: null, box_color: '#FF0000', confidence_threshold: 50 });
  t.is((await admin('POST', '/ai/detection-settings', { monitor_id: null, object_class_id: ids.car })).status, 409);
  const byMonitor = await admin('GET', `/ai/detection-settings?monitor_id=${ids.m1}`);
  t.deepEqual(
    byMonitor.body.items.map((r: any) => r.id),
    [created.body.id],
  );
  t.is((await admin('DELETE', `/ai/detection-settings/${global.body.id}`)).status, 204);
  t.is((await admin('GET', `/ai/detection-settings/${global.body.id}`)).status, 404);
  t.is((await admin('DELETE', `/ai/detection-settings/${global.body.id}`)).status, 404);
});

test.serial('detection settings: validation names the fields', async (t) => {
  const cases: Array<[object, string[]]> = [
    [{ object_class_id: ids.person, box_color: 'red' }, ['box_color']],
    [{ object_class_id: ids.person, confidence_threshold: 101 }, ['confidence_threshold']],
    [{ object_class_id: ids.person, enabled: 2 }, ['enabled']],
    [{ monitor_id: ids.m1 }, ['object_class_id']],
    [{ monitor_id: 999999, object_class_id: 999999 }, ['monitor_id', 'object_class_id']],
  ];
  for (const [body, expected] of cases) {
    const res = await admin('POST', '/ai/detection-settings', body);
    t.is(res.status, 400, JSON.stringify(body));
    for (const field of expected)
      t.true(
        fields(res.body).some((f) => f.includes(field)),
        `${field}: ${JSON.stringify(res.body.details)}`,
      );
  }
});

test.serial('detection settings: row ACL and the Monitors gate', async (t) => {
  const row = async (monitor: number | null) =>
    (
      await admin('POST', '/ai/detection-settings', {
        monitor_id: monitor,
        object_class_id: ids.car,
        confidence_threshold: 40,
      })
    ).body.id as number;
  const [r1, r2, r3] = [await row(ids.m1), await row(ids.m2), await row(ids.m3)];
  const global =
    (await admin('GET', '/ai/detection-settings?object_class_id=' + ids.car)).body.items.find(
      (r: any) => r.monitor_id === null,
    )?.id ?? (await admin('POST', '/ai/detection-settings', { object_class_id: ids.car })).body.id;
  const listed = (await limited('GET', `/ai/detection-settings?object_class_id=${ids.car}`)).body.items.map(
    (r: any) => r.id,
  );
  t.deepEqual(
    listed.sort((a: number, b: number) => a - b),
    [r1, r2, global].sort((a, b) => a - b),
  );
  t.is((await limited('GET', `/ai/detection-settings/${r3}`)).status, 404);
  t.is((await limited('PATCH', `/ai/detection-settings/${r3}`, { enabled: 0 })).status, 404);
  t.is((await limited('PATCH', `/ai/detection-settings/${r2}`, { enabled: 0 })).status, 403);
  t.is((await limited('PATCH', `/ai/detection-settings/${r1}`, { enabled: 0 })).status, 200);
  t.is(
    (await limited('PATCH', `/ai/detection-settings/${global}`, { enabled: 0 })).status,
    403,
    'site-wide rows need an unrestricted account',
  );
  t.is((await limited('DELETE', `/ai/detection-settings/${r2}`)).status, 403);
  const hidden = await limited('POST', '/ai/detection-settings', { monitor_id: ids.m3, object_class_id: ids.person });
  t.is(hidden.status, 400, 'a hidden monitor is unknown');
  t.deepEqual(fields(hidden.body), ['monitor_id']);
  t.is(
    (await limited('POST', '/ai/detection-settings', { monitor_id: ids.m2, object_class_id: ids.person })).status,
    403,
  );
  t.is((await limited('POST', '/ai/detection-settings', { object_class_id: ids.person })).status, 403);
  t.is((await monitorsView('POST', '/ai/detection-settings', { object_class_id: ids.person })).status, 403);
  t.is((await eventsView('GET', '/ai/detection-settings')).status, 403);
  const page = await admin('GET', '/ai/detection-settings?page=2&page_size=2');
  t.like(page.body, { per_page: 2, current_page: 2 });
  t.is(page.body.last_page, Math.ceil(page.body.total / 2));
  t.is((await admin('GET', '/ai/detection-settings?page_size=1001')).status, 400);
});

// ---------------------------------------------------------------- detections

test.serial('detections: create with frame and box, decimal confidence, wall-clock milliseconds', async (t) => {
  const body = {
    event_id: ids.e1,
    object_class_id: ids.person,
    confidence: 0.875,
    frame_id: ids.f1,
    bounding_box_x: 10,
    bounding_box_y: 20,
    bounding_box_width: 30,
    bounding_box_height: 40,
    detected_at: '2026-11-22T08:53:58.250',
  };
  const created = await admin('POST', '/ai/detections', body);
  t.is(created.status, 201);
  t.deepEqual(created.body, {
    ...body,
    id: created.body.id,
    confidence: '0.8750',
    detected_at: '2026-11-22T07:53:58.250Z',
  });
  const [row] = await db.db.query<any>(
    'SELECT Confidence, DetectedAt, FrameId FROM AI_Detections WHERE Id = ?',
    [created.body.id],
    db.name,
  );
  t.is(String(row.Confidence), '0.8750');
  t.is(Number(row.FrameId), ids.f1);
  t.deepEqual((await eventsView('GET', `/ai/detections/${created.body.id}`)).body, created.body);
  const patched = await admin('PATCH', `/ai/detections/${created.body.id}`, {
    confidence: 0.5,
    bounding_box_x: null,
    frame_id: null,
    object_class_id: ids.car,
  });
  t.like(patched.body, {
    confidence: '0.5000',
    bounding_box_x: null,
    frame_id: null,
    object_class_id: ids.car,
    bounding_box_y: 20,
  });
  const plain = await admin('POST', '/ai/detections', { event_id: ids.e2, object_class_id: ids.car, confidence: 1 });
  t.is(plain.status, 201);
  t.like(plain.body, { frame_id: null, confidence: '1.0000', bounding_box_x: null });
  t.regex(plain.body.detected_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/);
  const byEvent = await admin('GET', `/ai/detections?event_id=${ids.e1}`);
  t.deepEqual(
    byEvent.body.items.map((d: any) => d.id),
    [created.body.id],
  );
  t.is((await admin('DELETE', `/ai/detections/${created.body.id}`)).status, 204);
  t.is((await admin('GET', `/ai/detections/${created.body.id}`)).status, 404);
  t.is((await admin('DELETE', `/ai/detections/${created.body.id}`)).status, 404);
});

test.serial('detections: validation and references', async (t) => {
  const base = { event_id: ids.e1, object_class_id: ids.person, confidence: 0.5 };
  const cases: Array<[object, string[]]> = [
    [{ ...base, confidence: 1.5 }, ['confidence']],
    [{ ...base, confidence: undefined }, ['confidence']],
    [{ ...base, event_id: -1 }, ['event_id']],
    [{ ...base, bounding_box_x: -5 }, ['bounding_box_x']],
    [{ ...base, detected_at: 'yesterday' }, ['detected_at']],
    [{ ...base, detected_at: '2026-02-30T10:00:00' }, ['detected_at']],
    [{ ...base, detected_at: '0029-05-02T14:29:13' }, ['detected_at']], // MariaDB's range starts at year 1000
    [{ ...base, event_id: 999999, object_class_id: 999999 }, ['event_id', 'object_class_id']],
    [{ ...base, frame_id: ids.f3 }, ['frame_id']],
  ];
  for (const [body, expected] of cases) {
    const res = await admin('POST', '/ai/detections', body);
    t.is(res.status, 400, JSON.stringify(body));
    for (const field of expected)
      t.true(
        fields(res.body).some((f) => f.includes(field)),
        `${field}: ${JSON.stringify(res.body.details)}`,
      );
  }
  t.is((await admin('GET', '/ai/detections/abc')).status, 400);
});

test.serial('detections: row ACL through the event, and the Events gate', async (t) => {
  const make = async (event: number) =>
    (await admin('POST', '/ai/detections', { event_id: event, object_class_id: ids.person, confidence: 0.9 })).body
      .id as number;
  const [d1, d3] = [await make(ids.e1), await make(ids.e3)];
  const listed = (await limited('GET', '/ai/detections?page_size=1000')).body.items.map((d: any) => d.id);
  t.true(listed.includes(d1));
  t.false(listed.includes(d3), 'detections of hidden monitors are filtered');
  t.is((await limited('GET', `/ai/detections/${d3}`)).status, 404);
  t.is((await limited('DELETE', `/ai/detections/${d3}`)).status, 404);
  const hidden = await limited('POST', '/ai/detections', {
    event_id: ids.e3,
    object_class_id: ids.person,
    confidence: 0.1,
  });
  t.is(hidden.status, 400);
  t.deepEqual(fields(hidden.body), ['event_id']);
  t.is((await limited('PATCH', `/ai/detections/${d1}`, { confidence: 0.2 })).status, 200);
  t.is(
    (await eventsView('POST', '/ai/detections', { event_id: ids.e1, object_class_id: ids.person, confidence: 0.1 }))
      .status,
    403,
  );
  t.is((await monitorsView('GET', '/ai/detections')).status, 403);
  const page = await admin('GET', '/ai/detections?page=2&page_size=1&per_page=5');
  t.like(page.body, { per_page: 1, current_page: 2, last_page: page.body.total });
  t.is((await admin('GET', '/ai/detections?page_size=1001')).status, 400);
});

// ---------------------------------------------------------------- the extra families in the OpenAPI

const FAMILIES: Array<{ path: string; scope: string; ids: string[] }> = [
  {
    path: '/api/v3/roles',
    scope: 'system',
    ids: ['list_roles', 'create_role', 'get_role', 'update_role', 'delete_role'],
  },
  {
    path: '/api/v3/role-monitors-permissions',
    scope: 'system',
    ids: [
      'list_role_monitors_permissions',
      'create_role_monitor_permission',
      'get_role_monitor_permission',
      'update_role_monitor_permission',
      'delete_role_monitor_permission',
    ],
  },
  {
    path: '/api/v3/role-groups-permissions',
    scope: 'system',
    ids: [
      'list_role_groups_permissions',
      'create_role_group_permission',
      'get_role_group_permission',
      'update_role_group_permission',
      'delete_role_group_permission',
    ],
  },
  {
    path: '/api/v3/notifications',
    scope: 'authenticated',
    ids: [
      'list_notifications',
      'create_notification',
      'get_notification',
      'update_notification',
      'delete_notification',
    ],
  },
  {
    path: '/api/v3/menu-items',
    scope: 'system',
    ids: ['list_menu_items', 'create_menu_item', 'get_menu_item', 'update_menu_item', 'delete_menu_item'],
  },
  { path: '/api/v3/maps', scope: 'system', ids: ['list_maps', 'create_map', 'get_map', 'update_map', 'delete_map'] },
  {
    path: '/api/v3/encoder-templates',
    scope: 'monitors',
    ids: [
      'list_encoder_templates',
      'create_encoder_template',
      'get_encoder_template',
      'update_encoder_template',
      'delete_encoder_template',
    ],
  },
  {
    path: '/api/v3/ai/detection-settings',
    scope: 'monitors',
    ids: [
      'list_ai_detection_settings',
      'create_ai_detection_setting',
      'get_ai_detection_setting',
      'update_ai_detection_setting',
      'delete_ai_detection_setting',
    ],
  },
  {
    path: '/api/v3/ai/detections',
    scope: 'events',
    ids: [
      'list_ai_detections',
      'create_ai_detection',
      'get_ai_detection',
      'update_ai_detection',
      'delete_ai_detection',
    ],
  },
];

/** Every property name of a schema and the schemas it contains is snake_case. */
function snakeCase(t: any, schema: any, where: string, seen = new Set<any>()): void {
  const s = objectSchema(doc, schema);
  if (!s || seen.has(s)) return;
  seen.add(s);
  for (const [name, prop] of Object.entries<any>(s.properties ?? {})) {
    t.regex(name, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, `${where}.${name}`);
    snakeCase(t, prop.items ?? prop, `${where}.${name}`, seen);
  }
}

for (const family of FAMILIES) {
  test(`OpenAPI: ${family.path} lists its five operations, gated on ${family.scope}, snake_case`, (t) => {
    const [list, create, get, update, remove] = family.ids;
    const item = `${family.path}/{id}`;
    const ops: Array<[string, string, string]> = [
      ['get', family.path, list],
      ['post', family.path, create],
      ['get', item, get],
      ['patch', item, update],
      ['delete', item, remove],
    ];
    for (const [method, path, id] of ops) {
      const op = doc.paths[path]?.[method];
      if (!op) {
        t.fail(`${method} ${path} not served`);
        continue;
      }
      t.is(op.operationId, id);
      t.deepEqual(op.security, [{ jwt: [family.scope] }], id);
      const ok = op.responses['200'] ?? op.responses['201'];
      if (ok?.content) snakeCase(t, ok.content['application/json'].schema, id);
      if (op.requestBody) snakeCase(t, op.requestBody.content['application/json'].schema, `${id} body`);
    }
    t.truthy(doc.paths[family.path].post.responses['201'], 'create answers 201');
    t.truthy(doc.paths[item].delete.responses['204'], 'delete answers 204');
    const listOp = doc.paths[family.path].get;
    const envelope = objectSchema(doc, listOp.responses['200'].content['application/json'].schema);
    t.deepEqual([...envelope.required].sort(), ['current_page', 'items', 'last_page', 'per_page', 'total']);
    t.is(listOp.parameters.find((p: any) => p.name === 'page_size')?.schema.maximum, 1000);
    t.truthy(listOp.parameters.find((p: any) => p.name === 'page'));
    t.is(doc.paths[item].get.parameters.find((p: any) => p.name === 'id')?.schema.minimum, 0);
  });
}
