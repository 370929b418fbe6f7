import { describe, expect, it } from "vitest";
import { benefitLine, countdown, viewCount, wffAvailable, wffWaitSeconds, won } from "./format";

describe("viewCount (seed §5)", () => {
  it("shows 1천 at 1000 or less", () => {
    expect(viewCount(0)).toBe("1천");
    expect(viewCount(1)).toBe("1천");
    expect(viewCount(1000)).toBe("1천");
  });
  it("rounds up in steps of 100 under 10,000 (천)", () => {
    expect(viewCount(1001)).toBe("1.1천");
    expect(viewCount(1100)).toBe("1.1천");
    expect(viewCount(9901)).toBe("1만");
    expect(viewCount(5432)).toBe("5.5천");
  });
  it("rounds up in steps of 1,000 in 만", () => {
    expect(viewCount(10_000)).toBe("1만");
    expect(viewCount(12_001)).toBe("1.3만");
    expect(viewCount(1_234_567)).toBe("123.5만");
    expect(viewCount(99_999_999)).toBe("1억");
  });
  it("rounds up in steps of 10 million in 억", () => {
    expect(viewCount(100_000_000)).toBe("1억");
    expect(viewCount(100_000_001)).toBe("1.1억");
    expect(viewCount(123_456_789_012)).toBe("1,234.6억");
  });
  it("shows 9,999.9억 at the maximum and beyond", () => {
    expect(viewCount(999_990_000_000)).toBe("9,999.9억");
    expect(viewCount(5e12)).toBe("9,999.9억");
    expect(viewCount(999_980_000_001)).toBe("9,999.9억");
  });
});

describe("benefitLine (seed §5)", () => {
  it("keeps at most 2 items in the seed's order", () => {
    expect(benefitLine({ freeCoupon: true, freeVolCnt: 3, cashbackRate: 10, discountRate: 20, limitedRental: true })).toEqual([
      "기다리면 무료",
      "3화 무료",
    ]);
    expect(benefitLine({ cashbackRate: 10, discountRate: 20, limitedRental: true })).toEqual(["10% 캐시백", "20% 할인"]);
    expect(benefitLine({ limitedRental: true })).toEqual(["기간한정 대여"]);
    expect(benefitLine({ freeVolCnt: 0 })).toEqual([]);
  });
});

describe("wait-for-free", () => {
  it("waits recycle minutes × 60 seconds and is available at 0 or less", () => {
    expect(wffWaitSeconds(1440)).toBe(86_400);
    expect(wffAvailable(0)).toBe(true);
    expect(wffAvailable(-5)).toBe(true);
    expect(wffAvailable(1)).toBe(false);
  });
  it("counts down in hours, minutes and seconds", () => {
    expect(countdown(0)).toBe("지금");
    expect(countdown(59)).toBe("59초");
    expect(countdown(190)).toBe("3분 10초");
    expect(countdown(7500)).toBe("2시간 5분");
  });
});

it("won formats money", () => {
  expect(won(12300)).toBe("12,300원");
  expect(won(-1)).toBe("0원");
});
