/**
 * NYSE holidays and early closes: the rule lives in the contract module
 * (src/lib/contract/marketCalendar.ts) so the dashboard's market-hours label uses the same one.
 */
export {
	earlyCloseName,
	easterSunday,
	holidayName,
	isEarlyClose,
	isHoliday,
	nyseHolidays,
	sessionCloseMinute,
	sessionLengthSeconds
} from '../../lib/contract/marketCalendar';
