import { z } from 'zod';

const title = z.string().trim().min(1, 'title must not be empty').max(200, 'title must be at most 200 characters');

/** `POST /todos` body. Unknown fields are refused so typos do not pass silently. */
export const createTodoBody = z.strictObject({ title });

/** `PUT /todos/:id` body: at least one of the fields. */
export const updateTodoBody = z
  .strictObject({ title: title.optional(), completed: z.boolean().optional() })
  .refine((b) => b.title !== undefined || b.completed !== undefined, 'give title and/or completed');

export const TODO_ID = /^[0-9a-f-]{36}$/;
