import { type RouteConfig, index, layout, route } from "@react-router/dev/routes";

// The route table mirrors seed §2 row by row: one module per route, so screens
// can be filled in module by module. Optional segments are marked with "?".
export default [
  layout("layouts/default.tsx", [
    index("routes/home.tsx"),
    route("adultverification", "routes/adultverification.tsx"),

    route("awards", "routes/awards/index.tsx"),
    route("awards/:section", "routes/awards/section.tsx"),

    route("blueincome", "routes/blueincome.tsx"),
    route("cashback", "routes/cashback.tsx"),
    route("conversation", "routes/conversation.tsx"),
    route("specialset", "routes/specialset.tsx"),

    route("comic", "routes/comic/index.tsx"),
    route("comic/benefit", "routes/comic/benefit.tsx"),
    route("comic/benefit/:event", "routes/comic/benefit-event.tsx"),
    route("comic/best", "routes/comic/best.tsx"),
    route("comic/heroism", "routes/comic/heroism.tsx"),
    route("comic/heroism/:writer/:page?", "routes/comic/heroism-writer.tsx"),
    route("comic/genre/:category?/:page?", "routes/comic/genre.tsx"),
    route("comic/hq/:package?/:page?", "routes/comic/hq.tsx"),

    route("cs", "routes/cs/index.tsx"),
    route("cs/faq", "routes/cs/faq.tsx"),
    route("cs/faq/list/:category?/:page?", "routes/cs/faq-list.tsx"),
    route("cs/privacy", "routes/cs/privacy.tsx"),
    route("cs/qna", "routes/cs/qna.tsx"),
    route("cs/qna/list/:page?", "routes/cs/qna-list.tsx"),
    route("cs/notice/closingprod", "routes/cs/notice-closingprod.tsx"),
    route("cs/notice/:page?", "routes/cs/notice.tsx"),

    route("novel", "routes/novel/index.tsx"),
    route("novel/best", "routes/novel/best.tsx"),
    route("novel/:genre", "routes/novel/genre-home.tsx"),
    route("novel/genre/:category/:subgenre?/:page?", "routes/novel/genre.tsx"),

    route("webtoon", "routes/webtoon/index.tsx"),
    route("webtoon/best", "routes/webtoon/best.tsx"),
    route("webtoon/original", "routes/webtoon/original.tsx"),
    route("webtoon/shortstory", "routes/webtoon/shortstory.tsx"),
    route("webtoon/todayup", "routes/webtoon/todayup.tsx"),
    route("webtoon/weekday/:section?", "routes/webtoon/weekday.tsx"),
    route("webtoon/genre/:category?/:page?", "routes/webtoon/genre.tsx"),

    route("mypages/recent/edit", "routes/mypages/recent-edit.tsx"),
    route("mypages/recent/:page?", "routes/mypages/recent.tsx"),
    // 내 서재 (issue 34; not in the seed's table): shelves, then the gift box.
    route("mypages/gifts", "routes/mypages/gifts.tsx"),
    route("mypages/library/:shelf?/:page?", "routes/mypages/library.tsx"),
    // 알림함 (issue 34; not in the seed's table): the sidebar's 새 알림 opens it.
    route("mypages/inbox/:page?", "routes/mypages/inbox.tsx"),

    route("bluerun/:eid?", "routes/events/bluerun.tsx"),
    route("bluerun-preview/:eid", "routes/events/bluerun-preview.tsx"),
    route("doublecoupon/:eid?", "routes/events/doublecoupon.tsx"),
    route("doublecoupon-preview/:eid", "routes/events/doublecoupon-preview.tsx"),

    route("jumpingpass/:section?", "routes/jumpingpass.tsx"),
    route("keyword/:page?", "routes/keyword.tsx"),
    route("search", "routes/search.tsx"),
    route("ranking", "routes/ranking.tsx"),

    route(":section/detail/:pid?", "routes/detail.tsx"),
    // An author's page (issue 34; not in the seed's table): works and follow.
    route("authors/:id", "routes/author.tsx"),

    route("join/event.asp", "routes/join-event.tsx"),
    route("payment/recharge.asp", "routes/payment-recharge.tsx"),
    // Automatic top-up: cards and the two kinds (issue 32; not in the seed's table).
    route("payment/auto", "routes/payment-auto.tsx"),
    // Old bookmarks and pending payments of the extension-less address.
    route("payment/recharge", "routes/payment-recharge-redirect.tsx"),

    route("*", "routes/not-found.tsx"),
  ]),
  layout("layouts/empty.tsx", [
    route("nuxgin", "routes/nuxgin/index.tsx"),
    route("nuxgin/error/:code", "routes/nuxgin/error.tsx"),
    route("viewer", "routes/viewer.tsx"),
    route("logout", "routes/logout.tsx"),
    // Admin screens: no store header, sidebar or footer.
    route("admin/analytics", "routes/admin/analytics.tsx"),
    route("admin/analytics/live", "routes/admin/live.tsx"),
    route("admin/analytics/explore", "routes/admin/explore.tsx"),
    route("admin/media", "routes/admin/media.tsx"),
    route("admin/audit", "routes/admin/audit.tsx"),
    route("admin/comments", "routes/admin/comments.tsx"),
    route("admin/settlement", "routes/admin/settlement.tsx"),
    route("admin/reviews", "routes/admin/reviews.tsx"),
    // The partner portal (issue 31 item 3): a provider's works, episodes and sales.
    route("admin/portal", "routes/admin/portal.tsx"),
    // A work's settings (issue 31/32): for now its early access.
    route("admin/works/:pid", "routes/admin/work.tsx"),
  ]),
] satisfies RouteConfig;
