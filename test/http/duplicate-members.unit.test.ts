import { describe, expect, it } from 'vitest';
import { duplicateMember } from '../../src/http/duplicate-members.ts';

describe('duplicateMember: the first name one JSON object gives twice', () => {
  it('finds a name given twice at the top level', () => {
    expect(duplicateMember('{"name":"Rex","categoryId":1,"name":"Max"}')).toBe('name');
  });

  it('finds a name given twice in a nested object', () => {
    expect(duplicateMember('{"variables":{"input":{"status":"sold","status":"available"}}}')).toBe('status');
  });

  it('finds a name given again after a nested object closed', () => {
    expect(duplicateMember('{"a":{"b":1},"a":2}')).toBe('a');
  });

  it('compares names once decoded: "\\u0061" is "a"', () => {
    expect(duplicateMember('{"a":1,"\\u0061":2}')).toBe('a');
  });

  it('lets the same name through in different objects, of an object or of an array', () => {
    expect(duplicateMember('{"a":{"a":1},"b":[{"a":1},{"a":2}]}')).toBeUndefined();
  });

  it('does not take a string value for a name', () => {
    expect(duplicateMember('{"a":"a","b":["a","a"],"c":"a"}')).toBeUndefined();
  });

  it('reads past quotes, braces, commas and colons inside strings', () => {
    expect(duplicateMember('{"a":"x\\",\\"a\\":{[,","b":"\\\\","c":1}')).toBeUndefined();
  });

  it('ends a name at a quote that follows an escaped backslash', () => {
    expect(duplicateMember('{"a\\\\":1,"a\\\\":2}')).toBe('a\\');
  });

  it('answers undefined for JSON that is not an object', () => {
    expect(duplicateMember('[1,"a","a",{}]')).toBeUndefined();
  });
});
