/**
 * A tiny HTTP router with typed handlers.
 */
import { IncomingMessage, ServerResponse } from "http";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

export interface Route {
  method: Method;
  path: string;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export enum Status {
  Ok = 200,
  NotFound = 404,
}

function log(target: object, key: string): void {
  console.log(`registered ${key}`);
}

/** Parses a query string into pairs. */
export function parseQuery(raw: string): Map<string, string>;
export function parseQuery(raw: string, multi: true): Map<string, string[]>;
export function parseQuery(raw: string, multi?: boolean): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const part of raw.split("&")) {
    const [k, v] = part.split("=");
    out.set(k, multi ? [v] : v);
  }
  return out;
}

export class Router {
  private routes: Route[] = [];

  /** Adds a route. */
  @log
  add(route: Route): this {
    this.routes.push(route);
    return this;
  }

  match(method: Method, path: string): Route | undefined {
    return this.routes.find((r) => r.method === method && r.path === path);
  }

  static create(): Router {
    return new Router();
  }
}

export namespace Middleware {
  export const timing = async (req: IncomingMessage): Promise<number> => {
    return Date.now();
  };
}

export default Router;
