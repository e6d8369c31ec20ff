export { createTodoApp } from './create-todo-app';
export { openTodoStore } from './todo-store';
export type { Todo, TodoStore } from './todo-store';
