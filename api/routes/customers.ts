// Customers: POST /v1/customers, GET /v1/customers, GET /v1/customers/{id}.
import { customersQuery, type CustomerDetails, type CustomerRow } from '../../db/customers';
import { createCustomer } from '../../services/customers/create';
import { customerView } from '../../views/customer';
import { type ListQuery } from '../platform/pagination';
import { getRoute, listRoute } from '../platform/resource-routes';
import { defineRoute } from '../platform/route';
import { customerCreateSchema, customerListQuerySchema, customerSchema } from '../schemas/customer';

const customerLinks = { getCustomer: { operationId: 'getCustomer', parameters: { id: '$response.body#/id' } } };

export const customerRoutes = [
  defineRoute<CustomerDetails, unknown>({
    method: 'POST',
    path: '/v1/customers',
    operationId: 'createCustomer',
    summary: 'Create a customer',
    description: 'One customer per email per mode: an email that is already a customer answers 200 with that customer, the details sent filled in; a new one answers 201.',
    tag: 'Customers',
    auth: { permission: 'billing:write' },
    idempotent: true,
    body: customerCreateSchema,
    responses: {
      201: { description: 'The new customer.', schema: customerSchema, links: customerLinks },
      200: { description: 'The existing customer with this email, details filled in.', schema: customerSchema, links: customerLinks },
    },
    // 404 also without a reason: no such test clock (or a deleted one).
    errors: ['mode_mismatch'],
    async handler(input) {
      const { customer, created } = await createCustomer(input, input.caller, input.body);
      return { status: created ? 201 : 200, body: customerView(customer) };
    },
  }),
  listRoute<CustomerRow, ListQuery & { email?: string }>({
    path: '/v1/customers',
    operationId: 'listCustomers',
    summary: 'List customers, newest first',
    tag: 'Customers',
    auth: { permission: 'billing:read' },
    kind: 'customer',
    query: customerListQuerySchema,
    item: customerSchema,
    answer: 'A page of customers.',
    rows: ({ db, scope, query }) => customersQuery(db, scope, query.email),
    view: customerView,
  }),
  getRoute<CustomerRow>({
    path: '/v1/customers/{id}',
    operationId: 'getCustomer',
    summary: 'Get a customer',
    tag: 'Customers',
    auth: { permission: 'billing:read' },
    kind: 'customer',
    table: 'customers',
    item: customerSchema,
    answer: 'The customer.',
    view: customerView,
  }),
];
