// ZoneMinder 1.39.22's foreign keys. The shared information_schema dump has none (it lists
// tables, columns, indexes and triggers only), so these are written down from ZoneMinder's
// create script and update files: 29 relations, the count docs/zoneminder/database.md gives.
//
// Most implied relations (Events.MonitorId -> Monitors.Id and so on) deliberately have no
// constraint, and Events_Lock has none on purpose (1.39.21: a constraint would make every event
// delete lock that table). ZoneMinder leaves these constraints unnamed, so MariaDB names them
// <Table>_ibfk_<n> in declaration order; the names below are those. The converger compares
// constraints by what they do (columns, referenced table and columns, actions), not by name.
//
// Every constraint has a matching index in the dump (some of them, like Monitors.ManufacturerId
// or Events_Tags_ibfk_2, exist only because MariaDB created them for the constraint), so
// declaring the indexes explicitly keeps the index set exactly the dump's.
import type { ForeignKeyAction, ForeignKeyDef } from './types.js';

function fk(
  table: string,
  n: number,
  column: string,
  refTable: string,
  onDelete: ForeignKeyAction = 'RESTRICT',
): [string, ForeignKeyDef] {
  return [
    table,
    { name: `${table}_ibfk_${n}`, columns: [column], refTable, refColumns: ['Id'], onDelete, onUpdate: 'RESTRICT' },
  ];
}

const RELATIONS: [string, ForeignKeyDef][] = [
  // Monitor catalogue
  fk('Monitors', 1, 'ManufacturerId', 'Manufacturers'),
  fk('Monitors', 2, 'ModelId', 'Models'),
  fk('MonitorPresets', 1, 'ModelId', 'Models'),
  fk('Zones', 1, 'MonitorId', 'Monitors', 'CASCADE'),
  // Groups and permissions: rows go with their group, monitor, user or role
  fk('Groups', 1, 'ParentId', 'Groups', 'CASCADE'),
  fk('Groups_Monitors', 1, 'GroupId', 'Groups', 'CASCADE'),
  fk('Groups_Monitors', 2, 'MonitorId', 'Monitors', 'CASCADE'),
  fk('Groups_Permissions', 1, 'GroupId', 'Groups', 'CASCADE'),
  fk('Groups_Permissions', 2, 'UserId', 'Users', 'CASCADE'),
  fk('Monitors_Permissions', 1, 'MonitorId', 'Monitors', 'CASCADE'),
  fk('Monitors_Permissions', 2, 'UserId', 'Users', 'CASCADE'),
  fk('Role_Groups_Permissions', 1, 'RoleId', 'User_Roles', 'CASCADE'),
  fk('Role_Groups_Permissions', 2, 'GroupId', 'Groups', 'CASCADE'),
  fk('Role_Monitors_Permissions', 1, 'RoleId', 'User_Roles', 'CASCADE'),
  fk('Role_Monitors_Permissions', 2, 'MonitorId', 'Monitors', 'CASCADE'),
  // A deleted role leaves its users without one rather than deleting them.
  fk('Users', 1, 'RoleId', 'User_Roles', 'SET NULL'),
  fk('User_Preferences', 1, 'UserId', 'Users'),
  fk('Notifications', 1, 'UserId', 'Users', 'CASCADE'),
  // Event attachments
  fk('Snapshots_Events', 1, 'SnapshotId', 'Snapshots', 'CASCADE'),
  fk('Snapshots_Events', 2, 'EventId', 'Events', 'CASCADE'),
  fk('Events_Tags', 1, 'TagId', 'Tags', 'CASCADE'),
  fk('Events_Tags', 2, 'EventId', 'Events', 'CASCADE'),
  // Object detection (1.39.17)
  fk('AI_Models', 1, 'DatasetId', 'AI_Datasets', 'SET NULL'),
  fk('AI_Object_Classes', 1, 'DatasetId', 'AI_Datasets', 'CASCADE'),
  fk('AI_Detection_Settings', 1, 'MonitorId', 'Monitors', 'CASCADE'),
  fk('AI_Detection_Settings', 2, 'ObjectClassId', 'AI_Object_Classes', 'CASCADE'),
  fk('AI_Detections', 1, 'EventId', 'Events', 'CASCADE'),
  fk('AI_Detections', 2, 'FrameId', 'Frames', 'SET NULL'),
  fk('AI_Detections', 3, 'ObjectClassId', 'AI_Object_Classes', 'CASCADE'),
];

/** Foreign keys by child table. */
export const ZONEMINDER_FOREIGN_KEYS: ReadonlyMap<string, ForeignKeyDef[]> = (() => {
  const byTable = new Map<string, ForeignKeyDef[]>();
  for (const [table, def] of RELATIONS) {
    const list = byTable.get(table) ?? [];
    list.push(def);
    byTable.set(table, list);
  }
  return byTable;
})();
