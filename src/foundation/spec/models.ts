/** A model as listed by `GET /v1/models`. */
export interface ModelInfo {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  provider?: string;
}
