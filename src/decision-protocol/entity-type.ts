import { z } from 'zod';

/**
 * Cedar's entity type names: identifiers (`[_a-zA-Z][_a-zA-Z0-9]*`) joined by `::` for a
 * namespace, so `todo`, `Todo` and `Outpost::Todo` are all types, as they are in Cedar
 * (see the Cedar language reference, "Entity types"). A request names a type the way
 * the policy's schema does, with or without its namespace.
 */
export const ENTITY_TYPE_PATTERN = /^[_A-Za-z][_A-Za-z0-9]*(::[_A-Za-z][_A-Za-z0-9]*)*$/;

/** Longest entity type accepted, namespace included. */
export const MAX_ENTITY_TYPE_LENGTH = 128;

/** Words Cedar reserves, which no identifier (and so no part of a type name) may be. */
const RESERVED = new Set(['true', 'false', 'if', 'then', 'else', 'in', 'is', 'like', 'has', '__cedar']);

/** True when one `::`-separated part of a type name is not a word Cedar reserves. */
export function isEntityTypePart(part: string): boolean {
  return !RESERVED.has(part);
}

/** A Cedar entity type name, as {@link ENTITY_TYPE_PATTERN} describes, no part of it reserved. */
export const entityTypeSchema = z
  .string()
  .max(MAX_ENTITY_TYPE_LENGTH)
  .regex(ENTITY_TYPE_PATTERN, 'must be a Cedar entity type such as todo, Resource or Outpost::Todo')
  .refine((type) => type.split('::').every(isEntityTypePart), 'must not be a word Cedar reserves (in, is, has, …)');
