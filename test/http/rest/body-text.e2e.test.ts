import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';

/** How a JSON body's bytes become text: the declared charset decides, and nothing is guessed. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const post = (contentType: string, payload: Buffer | string) =>
  t.app.inject({ method: 'POST', url: '/v1/pets', headers: { 'content-type': contentType }, payload });

const ZOE_LATIN1 = Buffer.from('{"name":"Zoë","categoryId":1}', 'latin1');

describe('a JSON body with a declared charset', () => {
  it.each(['iso-8859-1', 'ISO-8859-1', 'latin1', '"iso-8859-1"'])(
    'decodes charset=%s as ISO-8859-1: the letters arrive as sent',
    async (charset) => {
      const response = await post(`application/json; charset=${charset}`, ZOE_LATIN1);
      expect([response.statusCode, response.json().name]).toEqual([201, 'Zoë']);
    },
  );

  it.each(['utf-8', 'UTF-8', 'utf8'])('decodes charset=%s as UTF-8', async (charset) => {
    const response = await post(`application/json; charset=${charset}`, '{"name":"Zoë","categoryId":1}');
    expect([response.statusCode, response.json().name]).toEqual([201, 'Zoë']);
  });

  it('decodes charset=us-ascii', async () => {
    const response = await post('application/json; charset=us-ascii', '{"name":"Zoe","categoryId":1}');
    expect([response.statusCode, response.json().name]).toEqual([201, 'Zoe']);
  });

  it('refuses a byte above 0x7F in a body declared US-ASCII with 400, saying where', async () => {
    const response = await post('application/json; charset=us-ascii', ZOE_LATIN1);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'invalid_json',
      message: 'The body is declared US-ASCII but holds the byte 0xEB at offset 11.',
      status: 400,
    });
  });

  it.each(['utf-16', 'windows-1252', 'shift_jis', ''])(
    'answers charset=%j, which it does not decode, with 415 naming it',
    async (charset) => {
      const response = await post(`application/json; charset=${charset}`, '{"name":"Zoe","categoryId":1}');
      expect(response.statusCode).toBe(415);
      expect(response.json()).toEqual({
        code: 'unsupported_media_type',
        message: `The charset ${JSON.stringify(charset)} is not supported: send UTF-8 (or ISO-8859-1, US-ASCII).`,
        status: 415,
      });
    },
  );

  it('answers a Content-Type that declares two charsets with 415, and records nothing', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/v1/pets?limit=100' })).json().length;
    const response = await post('application/json; charset=UTF-8; charset=latin1', ZOE_LATIN1);
    expect(response.json()).toEqual({
      code: 'unsupported_media_type',
      message: 'The Content-Type declares more than one charset (UTF-8, latin1): declare one.',
      status: 415,
    });
    expect((await t.app.inject({ method: 'GET', url: '/v1/pets?limit=100' })).json()).toHaveLength(before);
  });
});

describe('a JSON body with a Content-Encoding', () => {
  const encoded = (coding: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { 'content-type': 'application/json', 'content-encoding': coding },
      payload: '{"name":"Zoe","categoryId":1}',
    });

  it.each(['gzip', 'br', 'deflate, gzip'])(
    'answers %s, which it does not decode, with 415',
    async (coding) => {
      const response = await encoded(coding);
      expect(response.json()).toEqual({
        code: 'unsupported_media_type',
        message: `A body with Content-Encoding ${JSON.stringify(coding)} is not supported: send it unencoded.`,
        status: 415,
      });
    },
  );

  it('takes identity, which is no encoding', async () => {
    expect((await encoded('identity')).statusCode).toBe(201);
  });
});

describe('a JSON body without a charset', () => {
  it('is UTF-8: bytes that are not UTF-8 are a 400, never a stored U+FFFD', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/v1/pets?limit=100' })).json().length;
    const response = await post('application/json', ZOE_LATIN1);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'invalid_json',
      message: 'The body is not valid UTF-8; declare its charset if it is not.',
      status: 400,
    });
    expect((await t.app.inject({ method: 'GET', url: '/v1/pets?limit=100' })).json()).toHaveLength(before);
  });
});

describe('a JSON body with a member that could change prototypes', () => {
  it('answers "__proto__" with 400 saying so, not that the JSON is invalid', async () => {
    const response = await post(
      'application/json',
      '{"name":"Rex","categoryId":1,"__proto__":{"admin":true}}',
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message: 'The body holds a member named "__proto__", which is refused wherever it appears.',
      status: 400,
    });
  });

  it('finds "__proto__" written with escapes and nested', async () => {
    const response = await post('application/json', '{"name":{"\\u005f_proto__":{}},"categoryId":1}');
    expect(response.json().message).toBe(
      'The body holds a member named "__proto__", which is refused wherever it appears.',
    );
  });

  it('answers "constructor" holding "prototype" with 400 saying so', async () => {
    const response = await post(
      'application/json',
      '{"name":"Rex","categoryId":1,"constructor":{"prototype":{}}}',
    );
    expect(response.json()).toEqual({
      code: 'validation_failed',
      message:
        'The body holds a "constructor" member with a "prototype" member, which is refused wherever it appears.',
      status: 400,
    });
  });
});
