export const PRODUCT_NAME = "스토어프론트";
export const pageTitle = (t?: string) => (t ? `${t} | ${PRODUCT_NAME}` : PRODUCT_NAME);
