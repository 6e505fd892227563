/** Every schema and inferred type of the API's resources. */
export * from "./common";
export * from "./identity";
export * from "./directory";
export * from "./timeline";
export * from "./hva";
export * from "./integration";
export * from "./detection";
export * from "./errorBody";
