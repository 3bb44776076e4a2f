// Types of templates that other domains use; apart from the store, which only this domain imports.
import type { TemplateDoc } from './template.doc.js';

export interface TemplateRecord {
  id: string;
  org_id: string | null;
  name: string;
  detector_match: string;
  version: number;
  doc: TemplateDoc;
  system: boolean;
  enabled: boolean;
  unknown_fields: string[];
  updated_at: Date;
}
