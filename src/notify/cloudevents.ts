/**
 * The CloudEvents form of the generic document (issue 51 item 3): a `generic` sink with
 * `format: cloudevents` posts one event in structured mode (`application/cloudevents+json`,
 * CloudEvents 1.0), whose `data` is the obsync document itself — so event routers (Knative,
 * Argo Events, EventBridge, Azure Event Grid) take it as it is, and the document keeps its schema.
 */
import { outputSchemaId } from '../core/published.js';
import type { GenericPayload } from './payload.js';

export const CLOUDEVENTS_CONTENT_TYPE = 'application/cloudevents+json; charset=utf-8';
/** The event types: `com.github.obsync.notification.drift`, … (reverse-DNS of the project's home). */
export const CLOUDEVENT_TYPE_PREFIX = 'com.github.obsync.notification.';

export interface ObsyncCloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  subject?: string;
  time: string;
  datacontenttype: 'application/json';
  dataschema: string;
  data: GenericPayload;
}

export function cloudEvent(doc: GenericPayload): ObsyncCloudEvent {
  const single = doc.count === 1 && 'address' in doc.event && typeof doc.event.address === 'string' ? doc.event.address : undefined;
  return {
    specversion: '1.0',
    id: doc.id,
    // The context it happened in: the target; with the id, unique per notification.
    source: `/obsync/targets/${encodeURIComponent(doc.target)}`,
    type: `${CLOUDEVENT_TYPE_PREFIX}${doc.kind}`,
    ...(single ? { subject: single } : {}),
    time: doc.time,
    datacontenttype: 'application/json',
    dataschema: outputSchemaId('notification.schema.json'),
    data: doc,
  };
}
