import type { ServiceSpec } from '@conveyor/protocol';
import { indexPath, joinPath } from './problems.js';
import type { ProblemList } from './problems.js';
import { readEnv } from './read-env.js';
import { isYamlMap, readString, readStringList, reportWrongType } from './read-values.js';
import { reportUnknownKey } from './report-unknown-key.js';

const SERVICE_KEYS = ['name', 'image', 'env', 'command'] as const;
const SERVICE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** A service as read; `image` may still hold `${key}` references, replaced per variant. */
export interface ServiceTemplate extends ServiceSpec {
  /** Path of the `image` key, for reporting unknown `${key}` references. */
  imagePath: string;
}

/** Reads `services`: containers started beside the task, reachable under their names. */
export function readServices(value: unknown, path: string, problems: ProblemList): ServiceTemplate[] {
  if (!Array.isArray(value)) {
    reportWrongType(value, 'a list of services', path, problems);
    return [];
  }
  const services: ServiceTemplate[] = [];
  const namesSeen = new Map<string, number>();
  value.forEach((entry: unknown, index) => {
    const service = readService(entry, indexPath(path, index), problems);
    if (!service) return;
    const earlier = namesSeen.get(service.name);
    if (earlier !== undefined) {
      problems.add(joinPath(indexPath(path, index), 'name'), `repeats the name "${service.name}" of ${indexPath(path, earlier)}`);
      return;
    }
    namesSeen.set(service.name, index);
    services.push(service);
  });
  return services;
}

function readService(value: unknown, path: string, problems: ProblemList): ServiceTemplate | undefined {
  if (!isYamlMap(value)) {
    reportWrongType(value, 'a map with name and image', path, problems);
    return undefined;
  }
  let name: string | undefined;
  let image: string | undefined;
  let env: Record<string, string> = {};
  let command: string[] = [];
  for (const [key, raw] of value) {
    const keyPath = joinPath(path, key);
    switch (key) {
      case 'name':
        name = readString(raw, keyPath, problems, {
          pattern: SERVICE_NAME,
          patternMessage: `must match ${String(SERVICE_NAME)} (it becomes a host name)`,
        });
        break;
      case 'image':
        image = readString(raw, keyPath, problems, { nonEmpty: true });
        break;
      case 'env':
        env = readEnv(raw, keyPath, problems);
        break;
      case 'command':
        command = readStringList(raw, keyPath, problems, { allowSingle: true, entry: {} });
        break;
      default:
        reportUnknownKey(keyPath, key, SERVICE_KEYS, problems);
    }
  }
  if (!value.has('name')) problems.add(joinPath(path, 'name'), 'required');
  if (!value.has('image')) problems.add(joinPath(path, 'image'), 'required');
  if (name === undefined || image === undefined) return undefined;
  return { name, image, env, command, imagePath: joinPath(path, 'image') };
}
