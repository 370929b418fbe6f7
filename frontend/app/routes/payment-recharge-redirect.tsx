import { redirect } from "react-router";

/**
 * /payment/recharge (no extension) was where the charge flow came back while
 * the edge could not serve .asp addresses; bookmarks and payments started
 * before the change still arrive here. The query (paymentKey, orderId,
 * amount, result, return) goes along, so a pending payment is confirmed.
 */
export function clientLoader({ request }: { request: Request }) {
  const url = new URL(request.url);
  return redirect(`/payment/recharge.asp${url.search}`);
}

export default function Screen() {
  return null;
}
