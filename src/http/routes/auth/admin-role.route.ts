import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../../services/app-services.ts';
import { requireAdmin } from '../../auth.ts';
import { presentUser } from '../../presenters.ts';
import { errorResponse, idParam, userDataSchema } from '../../schemas.ts';

/**
 * Grants or removes the admin role (the dashboard's admin pages and the admin API with a session).
 * The first admin is made from the command line: `npx switchboard users promote <email|userId>`.
 */
export function registerAdminRoleRoute(app: FastifyInstance, services: AppServices): void {
  app.put('/admin/v1/users/:userId/admin', {
    onRequest: requireAdmin(services.config.adminToken),
    schema: {
      params: idParam('userId', 'User id'),
      body: { type: 'object', additionalProperties: false, required: ['isAdmin'], properties: { isAdmin: { type: 'boolean' } } },
    },
    config: {
      docs: {
        summary: "Set a user's admin role (admin sessions may use the admin API)",
        tags: ['Admin'],
        auth: 'admin',
        responses: {
          200: { description: 'The user with `isAdmin`', schema: { ...userDataSchema, properties: { ...(userDataSchema.properties as object), isAdmin: { type: 'boolean' } } } },
          404: errorResponse('No such user'),
        },
      },
    },
    handler: async (request) => {
      const { userId } = request.params as { userId: string };
      const user = await services.auth.setAdmin(userId, (request.body as { isAdmin: boolean }).isAdmin);
      return { ...presentUser(user), isAdmin: user.is_admin === 1 };
    },
  });
}
