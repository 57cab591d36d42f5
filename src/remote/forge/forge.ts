/**
 * A forge's review requests as write-back uses them (issue 41): at most one open request per
 * target branch — found, opened, updated, closed. GitHub calls it a pull request, GitLab a merge
 * request; `number` is the one its URL shows (GitHub's number, GitLab's iid).
 */
export interface ReviewRequest {
  number: number;
  url: string;
  /** ISO 8601, as the forge gives it. */
  createdAt: string;
  title: string;
  body: string;
}

export interface ReviewRequestText {
  title: string;
  body: string;
}

export interface ForgeClient {
  /** The open request from `branch` into `base`, if there is one. */
  findOpen(branch: string, base: string): Promise<ReviewRequest | undefined>;
  open(branch: string, base: string, text: ReviewRequestText): Promise<ReviewRequest>;
  update(number: number, text: ReviewRequestText): Promise<ReviewRequest>;
  close(number: number): Promise<void>;
  /** Stops the client's connections. */
  dispose(): Promise<void>;
}
