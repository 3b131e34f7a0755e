// What every surface plugin finds on `app.dragoman`: the shared service layer, accounts and metering.
import type { Accounts } from '../accounts/accounts.ts';
import type { Clock } from '../accounts/clock.ts';
import type { Gate } from '../accounts/gate.ts';
import type { Config } from '../config/env.ts';
import type { LanguageDetector } from '../detect/types.ts';
import type { Engine } from '../engine/types.ts';
import type { DocumentJobs } from '../documents/index.ts';
import type { Service } from '../service/index.ts';

/** The demo models being served (src/models/demo.ts makes it): the `demo` field of /health, /v1/languages, /ui/settings. */
export interface DemoInfo {
  models: string[];
  note: string;
}

export interface DragomanContext {
  config: Config;
  service: Service;
  accounts: Accounts;
  gate: Gate;
  engine: Engine;
  detector: LanguageDetector;
  clock: Clock;
  /** Document translation jobs (src/documents). */
  documents: DocumentJobs;
  /** Set when the models served are the demo ones (src/models/demo.ts). */
  demo?: DemoInfo;
}

declare module 'fastify' {
  interface FastifyInstance {
    dragoman: DragomanContext;
  }
}
