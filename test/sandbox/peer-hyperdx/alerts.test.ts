/**
 * Port of hyperdx `packages/api/src/routers/external-api/__tests__/alerts.int.test.ts` (b52a6fa8).
 * The webhooks, dashboards and saved searches the real tests insert with the models are created
 * through the API (a dashboard's tiles need a source, so each team gets a connection and a log
 * source first); "another team" is the sandbox's second team. Alerts the real tests insert
 * directly (bypassing validation) are created through the API with valid references.
 */
import { describe, expect, it } from 'vitest';
import { fixtures, newObjectId, usePeer, type Agent } from './support.js';

const ALERTS_BASE_URL = '/api/v2/alerts';

const RAW_SQL_ALERT_TEMPLATE = [
  'SELECT toStartOfInterval(Timestamp, INTERVAL {intervalSeconds:Int64} second) AS ts,',
  ' count() AS cnt',
  ' FROM default.otel_logs',
  ' WHERE Timestamp >= fromUnixTimestamp64Milli({startDateMilliseconds:Int64})',
  ' AND Timestamp < fromUnixTimestamp64Milli({endDateMilliseconds:Int64})',
  ' GROUP BY ts ORDER BY ts',
].join('');

const RAW_SQL_NUMBER_ALERT_TEMPLATE = [
  'SELECT count() AS cnt',
  ' FROM default.otel_logs',
  ' WHERE Timestamp >= fromUnixTimestamp64Milli({startDateMilliseconds:Int64})',
  ' AND Timestamp < fromUnixTimestamp64Milli({endDateMilliseconds:Int64})',
].join('');

const AlertSource = { TILE: 'tile', SAVED_SEARCH: 'saved_search' } as const;
const AlertThresholdType = { ABOVE: 'above', BETWEEN: 'between', NOT_BETWEEN: 'not_between' } as const;

const peer = usePeer();
const authRequest = (method: 'get' | 'post' | 'put' | 'delete', url: string) => peer().authRequest(method, url);

interface Team {
  agent: Agent;
  connection?: { id: string };
  source?: { id: string };
}
const teams = new WeakMap<Agent, Team>();
const teamOf = (other: boolean): Team => {
  const agent = other ? peer().otherTeam : peer().agent;
  let team = teams.get(agent);
  if (!team) teams.set(agent, (team = { agent }));
  return team;
};
async function sourceOf(team: Team) {
  const f = fixtures(team.agent);
  team.connection ??= await f.connection();
  team.source ??= await f.logSource(team.connection.id);
  return { connection: team.connection, source: team.source };
}

/** `Webhook.findOneAndUpdate(..., { upsert: true })`: one 'Test Webhook' per team. */
const createTestWebhook = async (options: { otherTeam?: boolean } = {}) => makeWebhookNamed('Test Webhook', options.otherTeam);

async function makeWebhookNamed(name: string, otherTeam = false): Promise<{ id: string; _id: string }> {
  const { agent } = teamOf(otherTeam);
  const list = await agent.get('/api/v2/webhooks').expect(200);
  const found = list.body.data.find((w: { name: string }) => w.name === name);
  const webhook = found ?? (await fixtures(agent).webhook({ name, service: 'slack', url: 'https://hooks.slack.com/test' }));
  return { ...webhook, _id: webhook.id };
}

const createTestDashboard = async (options: { numTiles?: number; name?: string; otherTeam?: boolean } = {}) => {
  const { numTiles = 1, name = 'Test Dashboard' } = options;
  const team = teamOf(options.otherTeam ?? false);
  const { source } = await sourceOf(team);
  const tiles = Array.from({ length: numTiles }, (_, i) => ({
    name: `Chart ${i + 1}`,
    x: i * 6,
    y: Math.floor(i / 2) * 3,
    w: 6,
    h: 3,
    config: { displayType: 'line', sourceId: source.id, select: [{ aggFn: 'count' }] },
  }));
  const dashboard = await fixtures(team.agent).dashboard({ name, tiles });
  return { ...dashboard, _id: dashboard.id } as { id: string; _id: string; tiles: { id: string }[] };
};

const createTestDashboardWithRawSqlTile = async (options: { displayType?: string; sqlTemplate?: string } = {}) => {
  const team = teamOf(false);
  const { connection } = await sourceOf(team);
  const dashboard = await fixtures(team.agent).dashboard({
    name: 'Raw SQL Dashboard',
    tiles: [
      {
        name: 'Raw SQL Chart',
        x: 0,
        y: 0,
        w: 6,
        h: 3,
        config: {
          configType: 'sql',
          displayType: options.displayType ?? 'number',
          sqlTemplate: options.sqlTemplate ?? 'SELECT 1',
          connectionId: connection.id,
        },
      },
    ],
  });
  return { dashboard: { ...dashboard, _id: dashboard.id }, tileId: dashboard.tiles[0].id as string };
};

const createTestSavedSearch = async (options: { otherTeam?: boolean } = {}) => {
  const team = teamOf(options.otherTeam ?? false);
  const { source } = await sourceOf(team);
  const savedSearch = await fixtures(team.agent).savedSearch(source.id, {
    name: 'Test Saved Search',
    where: 'error',
    whereLanguage: 'lucene',
  });
  return { ...savedSearch, _id: savedSearch.id };
};

const createTestAlert = async (overrides = {}) => {
  const dashboard = await createTestDashboard();
  const webhook = await createTestWebhook();

  const alertInput = {
    dashboardId: dashboard._id.toString(),
    tileId: dashboard.tiles[0]?.id,
    threshold: 100,
    interval: '1h',
    source: AlertSource.TILE,
    thresholdType: AlertThresholdType.ABOVE,
    channel: { type: 'webhook', webhookId: webhook._id.toString() },
    name: 'Test Alert',
    message: 'Test Alert Message',
    ...overrides,
  };

  const response = await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(200);

  return { alert: response.body.data, dashboard, webhook, alertInput };
};

describe('alerts.int.test.ts > External API Alerts', () => {
  describe('Response Format', () => {
    it('should return responses in the expected format', async () => {
      const testDashboard = await createTestDashboard();
      const testWebhook = await createTestWebhook();
      const testAlert = {
        dashboardId: testDashboard._id.toString(),
        tileId: testDashboard.tiles[0]?.id,
        threshold: 123,
        interval: '15m',
        source: AlertSource.TILE,
        thresholdType: AlertThresholdType.ABOVE,
        channel: { type: 'webhook', webhookId: testWebhook._id.toString() },
        name: 'Format Test Alert',
        message: 'This is a test alert for format verification',
      };

      const createResponse = await authRequest('post', ALERTS_BASE_URL).send(testAlert).expect(200);

      expect(createResponse.headers['content-type']).toMatch(/application\/json/);
      expect(createResponse.body).toEqual({
        data: {
          id: expect.any(String),
          name: 'Format Test Alert',
          message: 'This is a test alert for format verification',
          note: null,
          numConsecutiveWindows: null,
          threshold: 123,
          interval: '15m',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: expect.any(String) },
          channels: [{ type: 'webhook', webhookId: expect.any(String) }],
          teamId: expect.any(String),
          tileId: expect.any(String),
          dashboardId: expect.any(String),
          state: expect.any(String),
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
        },
      });

      const alertId = createResponse.body.data.id;
      const getResponse = await authRequest('get', `${ALERTS_BASE_URL}/${alertId}`).expect(200);

      expect(getResponse.headers['content-type']).toMatch(/application\/json/);
      expect(getResponse.body).toEqual({ data: createResponse.body.data });

      const listResponse = await authRequest('get', ALERTS_BASE_URL).expect(200);

      expect(listResponse.headers['content-type']).toMatch(/application\/json/);
      expect(listResponse.body).toHaveProperty('data');
      expect(Array.isArray(listResponse.body.data)).toBe(true);

      const deleteResponse = await authRequest('delete', `${ALERTS_BASE_URL}/${alertId}`).expect(200);

      expect(deleteResponse.body).toEqual({});
    });
  });

  describe('Creating alerts', () => {
    it('should create an alert', async () => {
      const dashboard = await createTestDashboard();
      const webhook = await createTestWebhook();

      const alertInput = {
        dashboardId: dashboard._id.toString(),
        tileId: dashboard.tiles[0]?.id,
        threshold: 100,
        interval: '1h',
        source: AlertSource.TILE,
        thresholdType: AlertThresholdType.ABOVE,
        channel: { type: 'webhook', webhookId: webhook._id.toString() },
        name: 'Test Alert',
        message: 'Test Alert Message',
      };

      const createResponse = await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(200);

      const createdAlert = createResponse.body.data;
      expect(createdAlert).toBeTruthy();
      expect(createdAlert.threshold).toEqual(100);
      expect(createdAlert.interval).toEqual('1h');
      expect(createdAlert.name).toEqual('Test Alert');
      expect(createdAlert.id).toBeTruthy();
    });

    it('should handle validation errors when creating alerts', async () => {
      const invalidInput = { name: 'Invalid Alert', message: 'This should fail validation' };

      const response = await authRequest('post', ALERTS_BASE_URL).send(invalidInput).expect(400);

      expect(response.body).toHaveProperty('message');
    });

    it('should reject scheduleOffsetMinutes when scheduleStartAt is provided', async () => {
      const dashboard = await createTestDashboard();

      const response = await authRequest('post', ALERTS_BASE_URL)
        .send({
          dashboardId: dashboard._id.toString(),
          tileId: dashboard.tiles[0]?.id,
          threshold: 100,
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: newObjectId() },
          scheduleOffsetMinutes: 2,
          scheduleStartAt: new Date().toISOString(),
        })
        .expect(400);

      expect(response.body).toHaveProperty('message');
    });

    it('should reject scheduleStartAt values more than 1 year in the future', async () => {
      const dashboard = await createTestDashboard();

      const response = await authRequest('post', ALERTS_BASE_URL)
        .send({
          dashboardId: dashboard._id.toString(),
          tileId: dashboard.tiles[0]?.id,
          threshold: 100,
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: newObjectId() },
          scheduleStartAt: new Date(Date.now() + 366 * 24 * 60 * 60 * 1000).toISOString(),
        })
        .expect(400);

      expect(response.body).toHaveProperty('message');
    });

    it('should create multiple alerts for different tiles', async () => {
      const dashboard = await createTestDashboard({ numTiles: 3 });
      const webhook = await createTestWebhook();

      const createdAlertIds: string[] = [];

      const alertPromises = dashboard.tiles.map((tile, index) => {
        const alertInput = {
          dashboardId: dashboard._id.toString(),
          tileId: tile.id,
          threshold: 100 * (index + 1),
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
          name: `Alert for ${tile.id}`,
          message: `This is an alert for ${tile.id}`,
        };

        return authRequest('post', ALERTS_BASE_URL)
          .send(alertInput)
          .expect(200)
          .then((res) => {
            createdAlertIds.push(res.body.data.id);
            return res;
          });
      });

      const results = await Promise.all(alertPromises);
      const createdAlerts = results.map((res) => res.body.data);
      expect(createdAlerts.length).toBe(3);

      const listResponse = await authRequest('get', ALERTS_BASE_URL).expect(200);

      for (const alertId of createdAlertIds) {
        const found = listResponse.body.data.some((alert: { id: string }) => alert.id === alertId);
        expect(found).toBe(true);
      }

      const tileIds = dashboard.tiles.map((tile) => tile.id);
      for (const tileId of tileIds) {
        const alertForTile = listResponse.body.data.find((alert: { tileId: string }) => alert.tileId === tileId);
        expect(alertForTile).toBeTruthy();
      }
    });
  });

  describe('Retrieving alerts', () => {
    it('should get an alert by ID', async () => {
      // The real test inserts this alert with the model (bypassing validation).
      const { alert } = await createTestAlert({ name: 'Direct DB Alert', message: 'Created directly in DB' });

      const getResponse = await authRequest('get', `${ALERTS_BASE_URL}/${alert.id}`).expect(200);

      expect(getResponse.body.data.id).toEqual(alert.id);
      expect(getResponse.body.data.name).toEqual('Direct DB Alert');
    });

    it('should return 404 for non-existent alert', async () => {
      await authRequest('get', `${ALERTS_BASE_URL}/${newObjectId()}`).expect(404);
    });

    it('should list all alerts', async () => {
      await createTestAlert({ name: 'First Alert', threshold: 100 });
      await createTestAlert({ name: 'Second Alert', threshold: 200 });
      await createTestAlert({ name: 'Third Alert', threshold: 300 });

      const listResponse = await authRequest('get', ALERTS_BASE_URL).expect(200);

      expect(listResponse.body.data).toBeTruthy();
      expect(Array.isArray(listResponse.body.data)).toBe(true);
      expect(listResponse.body.data.length).toBeGreaterThanOrEqual(3);

      const alertNames = listResponse.body.data.map((alert: { name: string }) => alert.name);
      expect(alertNames).toContain('First Alert');
      expect(alertNames).toContain('Second Alert');
      expect(alertNames).toContain('Third Alert');

      const firstAlert = listResponse.body.data.find((a: { name: string }) => a.name === 'First Alert');
      expect(firstAlert.threshold).toBe(100);

      const secondAlert = listResponse.body.data.find((a: { name: string }) => a.name === 'Second Alert');
      expect(secondAlert.threshold).toBe(200);
    });

    it('should paginate with limit and offset and report the total', async () => {
      await createTestAlert({ name: 'Alert A', threshold: 100 });
      await createTestAlert({ name: 'Alert B', threshold: 200 });
      await createTestAlert({ name: 'Alert C', threshold: 300 });

      const page1 = await authRequest('get', `${ALERTS_BASE_URL}?limit=2&offset=0`).expect(200);
      expect(page1.body.data).toHaveLength(2);
      expect(page1.body.meta).toEqual({ total: 3, limit: 2, offset: 0 });

      const page2 = await authRequest('get', `${ALERTS_BASE_URL}?limit=2&offset=2`).expect(200);
      expect(page2.body.data).toHaveLength(1);
      expect(page2.body.meta).toEqual({ total: 3, limit: 2, offset: 2 });

      const pagedIds = [...page1.body.data, ...page2.body.data].map((a: { id: string }) => a.id);
      expect(new Set(pagedIds).size).toBe(3);
    });

    it('should return an empty page with the correct total past the end', async () => {
      await createTestAlert({ name: 'Only Alert', threshold: 100 });

      const response = await authRequest('get', `${ALERTS_BASE_URL}?offset=100`).expect(200);
      expect(response.body.data).toHaveLength(0);
      expect(response.body.meta).toEqual({ total: 1, limit: 1000, offset: 100 });
    });

    it('should reject an out-of-range or non-integer limit or offset', async () => {
      await authRequest('get', `${ALERTS_BASE_URL}?limit=0`).expect(400);
      await authRequest('get', `${ALERTS_BASE_URL}?limit=5000`).expect(400);
      await authRequest('get', `${ALERTS_BASE_URL}?offset=-1`).expect(400);
      await authRequest('get', `${ALERTS_BASE_URL}?limit=abc`).expect(400);
      await authRequest('get', `${ALERTS_BASE_URL}?limit=1.5`).expect(400);
    });
  });

  describe('Updating alerts', () => {
    it('should update an alert', async () => {
      const { alert } = await createTestAlert({ name: 'Update Test Alert', threshold: 100, interval: '15m', message: 'Original message' });

      const originalAlert = await authRequest('get', `${ALERTS_BASE_URL}/${alert.id}`).expect(200);

      const updatePayload = {
        threshold: 500,
        interval: '1h',
        thresholdType: AlertThresholdType.ABOVE,
        source: AlertSource.TILE,
        dashboardId: originalAlert.body.data.dashboardId,
        tileId: originalAlert.body.data.tileId,
        channel: originalAlert.body.data.channel,
        name: 'Updated Alert Name',
        message: 'Updated message',
      };

      await authRequest('put', `${ALERTS_BASE_URL}/${alert.id}`).send(updatePayload).expect(200);

      const getResponse = await authRequest('get', `${ALERTS_BASE_URL}/${alert.id}`).expect(200);

      const retrievedAlert = getResponse.body.data;

      expect(retrievedAlert.name).toBe('Updated Alert Name');
      expect(retrievedAlert.threshold).toBe(500);
      expect(retrievedAlert.interval).toBe('1h');
      expect(retrievedAlert.message).toBe('Updated message');
    });

    it('should reject scheduleOffsetMinutes when scheduleStartAt is provided', async () => {
      const { alert } = await createTestAlert({ interval: '1h' });

      const originalAlert = await authRequest('get', `${ALERTS_BASE_URL}/${alert.id}`).expect(200);

      await authRequest('put', `${ALERTS_BASE_URL}/${alert.id}`)
        .send({
          threshold: originalAlert.body.data.threshold,
          interval: originalAlert.body.data.interval,
          thresholdType: originalAlert.body.data.thresholdType,
          source: originalAlert.body.data.source,
          dashboardId: originalAlert.body.data.dashboardId,
          tileId: originalAlert.body.data.tileId,
          channel: originalAlert.body.data.channel,
          scheduleOffsetMinutes: 2,
          scheduleStartAt: new Date().toISOString(),
        })
        .expect(400);
    });
  });

  describe('Deleting alerts', () => {
    it('should delete an alert', async () => {
      const { alert } = await createTestAlert({ name: 'Delete Test Alert' });

      await authRequest('delete', `${ALERTS_BASE_URL}/${alert.id}`).expect(200);

      await authRequest('get', `${ALERTS_BASE_URL}/${alert.id}`).expect(404);
      const listResponse = await authRequest('get', ALERTS_BASE_URL).expect(200);

      const deletedAlert = listResponse.body.data.find((a: { id: string }) => a.id === alert.id);
      expect(deletedAlert).toBeUndefined();
    });

    it('should return 404 with a JSON body when deleting a non-existent alert', async () => {
      const response = await authRequest('delete', `${ALERTS_BASE_URL}/${newObjectId()}`).expect(404);
      expect(response.body).toEqual({ message: 'Alert not found' });
    });
  });

  describe('Input validation', () => {
    describe('webhook validation', () => {
      it('should reject a non-existent webhook', async () => {
        const dashboard = await createTestDashboard();

        const alertInput = {
          dashboardId: dashboard._id.toString(),
          tileId: dashboard.tiles[0]?.id,
          threshold: 100,
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: newObjectId() },
        };

        await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(400);
      });

      it('should reject a webhook belonging to another team', async () => {
        const dashboard = await createTestDashboard();
        const otherTeamWebhook = await createTestWebhook({ otherTeam: true });

        const alertInput = {
          dashboardId: dashboard._id.toString(),
          tileId: dashboard.tiles[0]?.id,
          threshold: 100,
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: otherTeamWebhook._id.toString() },
        };

        await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(400);
      });

      it('should reject an update with a webhook belonging to another team', async () => {
        const { alert, dashboard } = await createTestAlert();
        const otherTeamWebhook = await createTestWebhook({ otherTeam: true });

        const updatePayload = {
          threshold: 200,
          interval: '1h',
          thresholdType: AlertThresholdType.ABOVE,
          source: AlertSource.TILE,
          dashboardId: dashboard._id.toString(),
          tileId: dashboard.tiles[0]?.id,
          channel: { type: 'webhook', webhookId: otherTeamWebhook._id.toString() },
        };

        await authRequest('put', `${ALERTS_BASE_URL}/${alert.id}`).send(updatePayload).expect(400);
      });
    });

    describe('dashboard (TILE source) validation', () => {
      it('should reject a non-existent dashboard', async () => {
        const webhook = await createTestWebhook();

        const alertInput = {
          dashboardId: newObjectId(),
          tileId: newObjectId(),
          threshold: 100,
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
        };

        await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(400);
      });

      it('should reject a dashboard belonging to another team', async () => {
        const webhook = await createTestWebhook();
        const otherTeamDashboard = await createTestDashboard({ otherTeam: true });

        const alertInput = {
          dashboardId: otherTeamDashboard._id.toString(),
          tileId: otherTeamDashboard.tiles[0]?.id,
          threshold: 100,
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
        };

        await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(400);
      });

      it('should reject an update with a dashboard belonging to another team', async () => {
        const { alert, webhook } = await createTestAlert();
        const otherTeamDashboard = await createTestDashboard({ otherTeam: true });

        const updatePayload = {
          threshold: 200,
          interval: '1h',
          thresholdType: AlertThresholdType.ABOVE,
          source: AlertSource.TILE,
          dashboardId: otherTeamDashboard._id.toString(),
          tileId: otherTeamDashboard.tiles[0]?.id,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
        };

        await authRequest('put', `${ALERTS_BASE_URL}/${alert.id}`).send(updatePayload).expect(400);
      });

      it('should allow creating an alert on a raw SQL line tile', async () => {
        const webhook = await createTestWebhook();
        const { dashboard, tileId } = await createTestDashboardWithRawSqlTile({ displayType: 'line', sqlTemplate: RAW_SQL_ALERT_TEMPLATE });

        const alertInput = {
          dashboardId: dashboard._id.toString(),
          tileId,
          threshold: 100,
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
        };

        const res = await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(200);
        expect(res.body.data.dashboardId).toBe(dashboard._id.toString());
        expect(res.body.data.tileId).toBe(tileId);
      });

      it('should allow creating an alert on a raw SQL number tile', async () => {
        const webhook = await createTestWebhook();
        const { dashboard, tileId } = await createTestDashboardWithRawSqlTile({
          displayType: 'number',
          sqlTemplate: RAW_SQL_NUMBER_ALERT_TEMPLATE,
        });

        const alertInput = {
          dashboardId: dashboard._id.toString(),
          tileId,
          threshold: 100,
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
        };

        const res = await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(200);
        expect(res.body.data.dashboardId).toBe(dashboard._id.toString());
        expect(res.body.data.tileId).toBe(tileId);
      });

      it('should reject creating an alert on a raw SQL table tile', async () => {
        const webhook = await createTestWebhook();
        const { dashboard, tileId } = await createTestDashboardWithRawSqlTile({
          displayType: 'table',
          sqlTemplate: RAW_SQL_ALERT_TEMPLATE,
        });

        const alertInput = {
          dashboardId: dashboard._id.toString(),
          tileId,
          threshold: 100,
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
        };

        await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(400);
      });

      it('should reject creating an alert on a raw SQL tile without interval params', async () => {
        const webhook = await createTestWebhook();
        const { dashboard, tileId } = await createTestDashboardWithRawSqlTile({
          displayType: 'line',
          sqlTemplate: 'SELECT count() FROM otel_logs',
        });

        const alertInput = {
          dashboardId: dashboard._id.toString(),
          tileId,
          threshold: 100,
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
        };

        await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(400);
      });

      it('should reject updating an alert to reference a raw SQL table tile', async () => {
        const { alert, webhook } = await createTestAlert();
        const { dashboard: rawSqlDashboard, tileId: rawSqlTileId } = await createTestDashboardWithRawSqlTile({
          displayType: 'table',
          sqlTemplate: RAW_SQL_ALERT_TEMPLATE,
        });

        const updatePayload = {
          threshold: 200,
          interval: '1h',
          thresholdType: AlertThresholdType.ABOVE,
          source: AlertSource.TILE,
          dashboardId: rawSqlDashboard._id.toString(),
          tileId: rawSqlTileId,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
        };

        await authRequest('put', `${ALERTS_BASE_URL}/${alert.id}`).send(updatePayload).expect(400);
      });
    });

    describe('saved search (SAVED_SEARCH source) validation', () => {
      it('should reject a non-existent saved search', async () => {
        const webhook = await createTestWebhook();

        const alertInput = {
          savedSearchId: newObjectId(),
          threshold: 100,
          interval: '1h',
          source: AlertSource.SAVED_SEARCH,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
        };

        await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(400);
      });

      it('should reject a saved search belonging to another team', async () => {
        const webhook = await createTestWebhook();
        const otherTeamSavedSearch = await createTestSavedSearch({ otherTeam: true });

        const alertInput = {
          savedSearchId: otherTeamSavedSearch._id.toString(),
          threshold: 100,
          interval: '1h',
          source: AlertSource.SAVED_SEARCH,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
        };

        await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(400);
      });

      it('should create an alert with a valid saved search belonging to the team', async () => {
        const webhook = await createTestWebhook();
        const savedSearch = await createTestSavedSearch();

        const alertInput = {
          savedSearchId: savedSearch._id.toString(),
          threshold: 100,
          interval: '1h',
          source: AlertSource.SAVED_SEARCH,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
          name: 'Saved Search Alert',
        };

        const response = await authRequest('post', ALERTS_BASE_URL).send(alertInput).expect(200);

        expect(response.body.data.source).toBe(AlertSource.SAVED_SEARCH);
        expect(response.body.data.savedSearchId).toBe(savedSearch._id.toString());
      });

      it('should reject an update with a saved search belonging to another team', async () => {
        const savedSearch = await createTestSavedSearch();
        const webhook = await createTestWebhook();

        const createResponse = await authRequest('post', ALERTS_BASE_URL)
          .send({
            savedSearchId: savedSearch._id.toString(),
            threshold: 100,
            interval: '1h',
            source: AlertSource.SAVED_SEARCH,
            thresholdType: AlertThresholdType.ABOVE,
            channel: { type: 'webhook', webhookId: webhook._id.toString() },
          })
          .expect(200);

        const otherTeamSavedSearch = await createTestSavedSearch({ otherTeam: true });

        const updatePayload = {
          savedSearchId: otherTeamSavedSearch._id.toString(),
          threshold: 200,
          interval: '1h',
          source: AlertSource.SAVED_SEARCH,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
        };

        await authRequest('put', `${ALERTS_BASE_URL}/${createResponse.body.data.id}`).send(updatePayload).expect(400);
      });
    });
  });

  describe('BETWEEN and NOT_BETWEEN threshold types', () => {
    const tileAlert = async (extra: Record<string, unknown>) => {
      const dashboard = await createTestDashboard();
      const webhook = await createTestWebhook();
      return {
        dashboardId: dashboard._id.toString(),
        tileId: dashboard.tiles[0]?.id,
        interval: '1h',
        source: AlertSource.TILE,
        channel: { type: 'webhook', webhookId: webhook._id.toString() },
        ...extra,
      };
    };

    it('should create an alert with BETWEEN threshold type', async () => {
      const response = await authRequest('post', ALERTS_BASE_URL)
        .send(await tileAlert({ threshold: 50, thresholdMax: 200, thresholdType: AlertThresholdType.BETWEEN }))
        .expect(200);

      const alert = response.body.data;
      expect(alert.threshold).toBe(50);
      expect(alert.thresholdMax).toBe(200);
      expect(alert.thresholdType).toBe(AlertThresholdType.BETWEEN);
    });

    it('should create an alert with NOT_BETWEEN threshold type', async () => {
      const response = await authRequest('post', ALERTS_BASE_URL)
        .send(await tileAlert({ threshold: 10, thresholdMax: 90, interval: '5m', thresholdType: AlertThresholdType.NOT_BETWEEN }))
        .expect(200);

      const alert = response.body.data;
      expect(alert.threshold).toBe(10);
      expect(alert.thresholdMax).toBe(90);
      expect(alert.thresholdType).toBe(AlertThresholdType.NOT_BETWEEN);
    });

    it('should reject BETWEEN without thresholdMax', async () => {
      await authRequest('post', ALERTS_BASE_URL)
        .send(await tileAlert({ threshold: 50, thresholdType: AlertThresholdType.BETWEEN }))
        .expect(400);
    });

    it('should reject BETWEEN when thresholdMax < threshold', async () => {
      await authRequest('post', ALERTS_BASE_URL)
        .send(await tileAlert({ threshold: 100, thresholdMax: 50, thresholdType: AlertThresholdType.BETWEEN }))
        .expect(400);
    });

    it('should allow thresholdMax equal to threshold for BETWEEN', async () => {
      const response = await authRequest('post', ALERTS_BASE_URL)
        .send(await tileAlert({ threshold: 100, thresholdMax: 100, thresholdType: AlertThresholdType.BETWEEN }))
        .expect(200);

      expect(response.body.data.threshold).toBe(100);
      expect(response.body.data.thresholdMax).toBe(100);
    });

    it('should update an alert to use BETWEEN threshold type', async () => {
      const { alert, dashboard, webhook } = await createTestAlert();

      const updateResponse = await authRequest('put', `${ALERTS_BASE_URL}/${alert.id}`)
        .send({
          dashboardId: dashboard._id.toString(),
          tileId: dashboard.tiles[0]?.id,
          threshold: 20,
          thresholdMax: 80,
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.BETWEEN,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
        })
        .expect(200);

      const updatedAlert = updateResponse.body.data;
      expect(updatedAlert.threshold).toBe(20);
      expect(updatedAlert.thresholdMax).toBe(80);
      expect(updatedAlert.thresholdType).toBe(AlertThresholdType.BETWEEN);
    });

    it('should retrieve a BETWEEN alert with thresholdMax', async () => {
      const createResponse = await authRequest('post', ALERTS_BASE_URL)
        .send(await tileAlert({ threshold: 10, thresholdMax: 50, thresholdType: AlertThresholdType.BETWEEN }))
        .expect(200);

      const getResponse = await authRequest('get', `${ALERTS_BASE_URL}/${createResponse.body.data.id}`).expect(200);

      expect(getResponse.body.data.threshold).toBe(10);
      expect(getResponse.body.data.thresholdMax).toBe(50);
      expect(getResponse.body.data.thresholdType).toBe(AlertThresholdType.BETWEEN);
    });
  });

  describe('Authentication', () => {
    it('should require authentication', async () => {
      await peer().anonymous.get(`${ALERTS_BASE_URL}/${newObjectId()}`).expect(401);
    });
  });

  describe('Consecutive-window alerting (numConsecutiveWindows)', () => {
    it('should create an alert with numConsecutiveWindows and return it', async () => {
      const { alert } = await createTestAlert({ numConsecutiveWindows: 3 });

      expect(alert.numConsecutiveWindows).toBe(3);
    });

    it('should default numConsecutiveWindows to null when not provided', async () => {
      const { alert } = await createTestAlert();

      expect(alert.numConsecutiveWindows).toBeNull();
    });

    it('should reject numConsecutiveWindows below 1', async () => {
      const dashboard = await createTestDashboard();
      const webhook = await createTestWebhook();

      await authRequest('post', ALERTS_BASE_URL)
        .send({
          dashboardId: dashboard._id.toString(),
          tileId: dashboard.tiles[0]?.id,
          threshold: 100,
          interval: '1h',
          source: AlertSource.TILE,
          thresholdType: AlertThresholdType.ABOVE,
          channel: { type: 'webhook', webhookId: webhook._id.toString() },
          numConsecutiveWindows: 0,
        })
        .expect(400);
    });

    it('should return numConsecutiveWindows on GET by id', async () => {
      const { alert } = await createTestAlert({ numConsecutiveWindows: 5 });

      const getResponse = await authRequest('get', `${ALERTS_BASE_URL}/${alert.id}`).expect(200);

      expect(getResponse.body.data.numConsecutiveWindows).toBe(5);
    });

    it('should return numConsecutiveWindows on the list endpoint', async () => {
      const { alert } = await createTestAlert({ numConsecutiveWindows: 4 });

      const listResponse = await authRequest('get', ALERTS_BASE_URL).expect(200);

      const match = listResponse.body.data.find((a: { id: string }) => a.id === alert.id);
      expect(match).toBeDefined();
      expect(match.numConsecutiveWindows).toBe(4);
    });

    it('should update an alert to set numConsecutiveWindows', async () => {
      const { alert, alertInput } = await createTestAlert();

      expect(alert.numConsecutiveWindows).toBeNull();

      await authRequest('put', `${ALERTS_BASE_URL}/${alert.id}`)
        .send({ ...alertInput, numConsecutiveWindows: 2 })
        .expect(200);

      const getResponse = await authRequest('get', `${ALERTS_BASE_URL}/${alert.id}`).expect(200);

      expect(getResponse.body.data.numConsecutiveWindows).toBe(2);
    });

    it('should update an alert to clear numConsecutiveWindows (null)', async () => {
      const { alert, alertInput } = await createTestAlert({ numConsecutiveWindows: 3 });

      expect(alert.numConsecutiveWindows).toBe(3);

      await authRequest('put', `${ALERTS_BASE_URL}/${alert.id}`)
        .send({ ...alertInput, numConsecutiveWindows: null })
        .expect(200);

      const getResponse = await authRequest('get', `${ALERTS_BASE_URL}/${alert.id}`).expect(200);

      expect(getResponse.body.data.numConsecutiveWindows).toBeNull();
    });
  });

  describe('Multiple notification channels', () => {
    const baseSavedSearchAlert = async () => {
      const savedSearch = await createTestSavedSearch();
      return { source: 'saved_search', savedSearchId: savedSearch._id.toString(), interval: '5m', threshold: 1, thresholdType: 'above' };
    };

    it('creates an alert with multiple channels and echoes both shapes', async () => {
      const w1 = await makeWebhookNamed('multi-1');
      const w2 = await makeWebhookNamed('multi-2');
      const base = await baseSavedSearchAlert();
      const resp = await authRequest('post', ALERTS_BASE_URL)
        .send({
          ...base,
          channels: [
            { type: 'webhook', webhookId: w1._id.toString() },
            { type: 'webhook', webhookId: w2._id.toString() },
          ],
        })
        .expect(200);
      expect(resp.body.data.channels).toEqual([
        { type: 'webhook', webhookId: w1._id.toString() },
        { type: 'webhook', webhookId: w2._id.toString() },
      ]);
      expect(resp.body.data.channel).toEqual({ type: 'webhook', webhookId: w1._id.toString() });
    });

    it('legacy single-channel payloads still work and gain channels in the response', async () => {
      const webhook = await createTestWebhook();
      const base = await baseSavedSearchAlert();
      const resp = await authRequest('post', ALERTS_BASE_URL)
        .send({ ...base, channel: { type: 'webhook', webhookId: webhook._id.toString() } })
        .expect(200);
      expect(resp.body.data.channels).toEqual([{ type: 'webhook', webhookId: webhook._id.toString() }]);
    });

    it('round-trips a multi-channel alert through PUT unchanged', async () => {
      const w1 = await makeWebhookNamed('rt-1');
      const w2 = await makeWebhookNamed('rt-2');
      const base = await baseSavedSearchAlert();
      const created = await authRequest('post', ALERTS_BASE_URL)
        .send({
          ...base,
          channels: [
            { type: 'webhook', webhookId: w1._id.toString() },
            { type: 'webhook', webhookId: w2._id.toString() },
          ],
        })
        .expect(200);

      await authRequest('put', `${ALERTS_BASE_URL}/${created.body.data.id}`)
        .send({ ...created.body.data, ...base, threshold: 42 })
        .expect(200);

      const after = await authRequest('get', `${ALERTS_BASE_URL}/${created.body.data.id}`).expect(200);
      expect(after.body.data.channels).toHaveLength(2);
      expect(after.body.data.threshold).toBe(42);
    });

    it('collapses to one channel when a legacy client sends only `channel`', async () => {
      const w1 = await makeWebhookNamed('legacy-1');
      const w2 = await makeWebhookNamed('legacy-2');
      const base = await baseSavedSearchAlert();
      const created = await authRequest('post', ALERTS_BASE_URL)
        .send({
          ...base,
          channels: [
            { type: 'webhook', webhookId: w1._id.toString() },
            { type: 'webhook', webhookId: w2._id.toString() },
          ],
        })
        .expect(200);
      expect(created.body.data.channels).toHaveLength(2);

      await authRequest('put', `${ALERTS_BASE_URL}/${created.body.data.id}`)
        .send({ ...base, channel: { type: 'webhook', webhookId: w1._id.toString() } })
        .expect(200);

      const after = await authRequest('get', `${ALERTS_BASE_URL}/${created.body.data.id}`).expect(200);
      expect(after.body.data.channels).toEqual([{ type: 'webhook', webhookId: w1._id.toString() }]);
    });

    it('rejects invalid channel combinations', async () => {
      const webhook = await createTestWebhook();
      const base = await baseSavedSearchAlert();
      const ch = { type: 'webhook', webhookId: webhook._id.toString() };
      const other = await makeWebhookNamed('mismatch-1');
      await authRequest('post', ALERTS_BASE_URL)
        .send({ ...base, channel: ch, channels: [{ type: 'webhook', webhookId: other._id.toString() }] })
        .expect(400);
      await authRequest('post', ALERTS_BASE_URL).send(base).expect(400);
      await authRequest('post', ALERTS_BASE_URL)
        .send({ ...base, channels: [ch, ch] })
        .expect(400);
      const many = Array.from({ length: 11 }, () => ({ type: 'webhook', webhookId: newObjectId() }));
      await authRequest('post', ALERTS_BASE_URL)
        .send({ ...base, channels: many })
        .expect(400);
      const otherTeamWebhook = await createTestWebhook({ otherTeam: true });
      await authRequest('post', ALERTS_BASE_URL)
        .send({ ...base, channels: [ch, { type: 'webhook', webhookId: otherTeamWebhook._id.toString() }] })
        .expect(400);
    });
  });
});
