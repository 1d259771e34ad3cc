// The `templates` table: its row type and the one mapper between row and domain template.
import type { Template, TemplateRecord, TemplateVariable } from '../../domain/templates/template.js';

export interface TemplateRow {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  variables: TemplateVariable[];
  records: TemplateRecord[];
  created_at: Date;
  updated_at: Date;
}

/** A template as stored: built-ins have no timestamps. */
export interface StoredTemplate extends Template {
  createdAt: Date | null;
  updatedAt: Date | null;
}

export const templateToDomain = (r: TemplateRow): StoredTemplate => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  description: r.description,
  variables: r.variables,
  records: r.records,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
