<?php
/**
 * Who may read a post, as the sync must see it: an anonymous visitor on the
 * post's own page.
 *
 * The assistant quotes synced content to anyone, so a post is rendered as a
 * logged-out visitor would get it (current user 0, the post set up as the
 * queried object of a singular page, outside wp-admin) and the known content
 * restrictions of membership plugins deny it by default.
 *
 * Recognised restrictions (checks(), the one list of them), each by its
 * plugin's API when the plugin is active and, where the plugin keeps the rule
 * on the post itself, by that post meta too (so the post stays out even while
 * its plugin is switched off or renames its functions):
 *
 * - MemberPress: MeprRule::is_locked().
 * - Paid Memberships Pro: pmpro_has_membership_access() (levels on the post or its categories).
 * - Restrict Content Pro: rcp_is_restricted_content(); meta _is_paid, rcp_subscription_level,
 *   rcp_access_level, rcp_user_level.
 * - WooCommerce Memberships: wc_memberships_is_post_content_restricted(),
 *   wc_memberships_is_product_viewing_restricted().
 * - Members: members_can_user_view_post(); meta _members_access_role.
 * - Paid Member Subscriptions: pms_is_post_restricted(); meta pms-content-restrict-user-status,
 *   pms-content-restrict-subscription-plan, pms-content-restrict-all-subscription-plans.
 * - Ultimate Member: meta um_content_restriction (custom access other than "everyone").
 * - Groups: meta groups-read (and the older groups-groups_read_post).
 *
 * Anything else that gates content through `the_content` for logged-out
 * visitors is honoured by the anonymous rendering itself; the `rtac_should_sync`
 * filter decides the rest.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Access {

	/**
	 * The name of what restricts the post for an anonymous visitor, or '' when nothing does.
	 */
	public static function restriction( WP_Post $post ): string {
		$checks = self::checks();
		return self::as_visitor(
			$post,
			static function () use ( $post, $checks ): string {
				foreach ( $checks as $name => $restricts ) {
					if ( $restricts( $post ) ) {
						return $name;
					}
				}
				return '';
			}
		);
	}

	/**
	 * The recognised restrictions: label => whether it restricts the post for
	 * the current (anonymous) visitor. See the class comment.
	 *
	 * @return array<string, callable(WP_Post): bool>
	 */
	public static function checks(): array {
		$meta = static function ( WP_Post $post, string $key ) {
			return get_post_meta( $post->ID, $key, true );
		};
		$set  = static function ( $value, array $unrestricted = array() ): bool {
			if ( is_array( $value ) ) {
				return array() !== array_filter( $value, static fn ( $v ) => '' !== (string) ( is_scalar( $v ) ? $v : 'x' ) );
			}
			$value = trim( (string) $value );
			return '' !== $value && ! in_array( strtolower( $value ), $unrestricted, true );
		};
		return array(
			'MemberPress'               => static fn ( WP_Post $p ): bool => class_exists( 'MeprRule' ) && is_callable( array( 'MeprRule', 'is_locked' ) ) && (bool) MeprRule::is_locked( $p ),
			'Paid Memberships Pro'      => static fn ( WP_Post $p ): bool => function_exists( 'pmpro_has_membership_access' ) && ! pmpro_has_membership_access( $p->ID ),
			'Restrict Content Pro'      => static fn ( WP_Post $p ): bool => ( function_exists( 'rcp_is_restricted_content' ) && rcp_is_restricted_content( $p->ID ) )
				|| $set( $meta( $p, '_is_paid' ), array( '0', 'false', 'no' ) )
				|| $set( $meta( $p, 'rcp_subscription_level' ), array( 'all' ) )
				|| $set( $meta( $p, 'rcp_access_level' ), array( '0', 'none' ) )
				|| $set( $meta( $p, 'rcp_user_level' ), array( 'all', 'none' ) ),
			'WooCommerce Memberships'   => static fn ( WP_Post $p ): bool => ( function_exists( 'wc_memberships_is_post_content_restricted' ) && wc_memberships_is_post_content_restricted( $p->ID ) )
				|| ( 'product' === $p->post_type && function_exists( 'wc_memberships_is_product_viewing_restricted' ) && wc_memberships_is_product_viewing_restricted( $p->ID ) ),
			'Members'                   => static fn ( WP_Post $p ): bool => ( function_exists( 'members_can_user_view_post' ) && ! members_can_user_view_post( 0, $p->ID ) )
				|| $set( get_post_meta( $p->ID, '_members_access_role', false ) ),
			'Paid Member Subscriptions' => static fn ( WP_Post $p ): bool => ( function_exists( 'pms_is_post_restricted' ) && pms_is_post_restricted( $p->ID ) )
				|| $set( $meta( $p, 'pms-content-restrict-user-status' ) )
				|| $set( get_post_meta( $p->ID, 'pms-content-restrict-subscription-plan', false ) )
				|| $set( $meta( $p, 'pms-content-restrict-all-subscription-plans' ) ),
			'Ultimate Member'           => static function ( WP_Post $p ) use ( $meta ): bool {
				$r = $meta( $p, 'um_content_restriction' );
				// _um_accessible: 0 everyone, 1 logged-out visitors only, 2 logged-in users only.
				return is_array( $r ) && ! empty( $r['_um_custom_access_settings'] ) && '0' !== (string) ( $r['_um_accessible'] ?? '0' );
			},
			'Groups'                    => static fn ( WP_Post $p ): bool => $set( get_post_meta( $p->ID, 'groups-read', false ) )
				|| $set( get_post_meta( $p->ID, 'groups-groups_read_post', false ) ),
		);
	}

	/**
	 * Runs $fn as an anonymous visitor reading $post's own page, and puts
	 * everything back afterwards, also when $fn throws: the current user
	 * becomes 0, the global post and its postdata are $post, the main query is
	 * a singular query for it (in the loop), and in wp-admin is_admin() answers
	 * false (filters that skip their work in wp-admin run as on the page).
	 *
	 * @return mixed What $fn returns.
	 */
	public static function as_visitor( WP_Post $post, callable $fn ) {
		$user_id = get_current_user_id();
		$keys    = array( 'post', 'id', 'authordata', 'currentday', 'currentmonth', 'page', 'pages', 'multipage', 'more', 'numpages', 'wp_query', 'wp_the_query', 'current_screen' );
		$saved   = array();
		foreach ( $keys as $key ) {
			$saved[ $key ] = array_key_exists( $key, $GLOBALS ) ? array( $GLOBALS[ $key ] ) : null;
		}

		try {
			if ( 0 !== $user_id ) {
				wp_set_current_user( 0 );
			}
			self::leave_admin();
			// phpcs:disable WordPress.WP.GlobalVariablesOverride.Prohibited -- restored in finally
			$query                   = self::singular_query( $post );
			$GLOBALS['wp_query']     = $query;
			$GLOBALS['wp_the_query'] = $query;
			$GLOBALS['post']         = $post;
			// phpcs:enable
			setup_postdata( $post );
			return $fn();
		} finally {
			foreach ( $saved as $key => $value ) {
				if ( null === $value ) {
					unset( $GLOBALS[ $key ] );
				} else {
					$GLOBALS[ $key ] = $value[0]; // phpcs:ignore WordPress.WP.GlobalVariablesOverride.Prohibited -- putting back what was there
				}
			}
			if ( get_current_user_id() !== $user_id ) {
				wp_set_current_user( $user_id );
			}
		}
	}

	/** A main query as WordPress builds it for the post's own page. */
	private static function singular_query( WP_Post $post ): WP_Query {
		$query = new WP_Query();
		$vars  = 'page' === $post->post_type
			? array( 'page_id' => $post->ID )
			: array(
				'p'         => $post->ID,
				'post_type' => $post->post_type,
			);
		$query->query_vars        = $query->fill_query_vars( $vars );
		$query->query             = $vars;
		$query->is_singular       = true;
		$query->is_page           = 'page' === $post->post_type;
		$query->is_single         = ! $query->is_page;
		$query->posts             = array( $post );
		$query->post              = $post;
		$query->post_count        = 1;
		$query->found_posts       = 1;
		$query->max_num_pages     = 1;
		$query->current_post      = 0;
		$query->in_the_loop       = true;
		$query->queried_object    = $post;
		$query->queried_object_id = (int) $post->ID;
		return $query;
	}

	/**
	 * In wp-admin, a copy of the current screen that says it is not wp-admin, so
	 * is_admin() answers as on the front end. (Outside wp-admin nothing changes.)
	 */
	private static function leave_admin(): void {
		if ( ! is_admin() || ! class_exists( 'WP_Screen' ) ) {
			return;
		}
		$screen = isset( $GLOBALS['current_screen'] ) && $GLOBALS['current_screen'] instanceof WP_Screen
			? clone $GLOBALS['current_screen']
			: WP_Screen::get( 'front' );
		$outside = function () {
			$this->in_admin = false; // phpcs:ignore -- WP_Screen's own property, set on this copy only
		};
		Closure::bind( $outside, $screen, WP_Screen::class )();
		$GLOBALS['current_screen'] = $screen; // phpcs:ignore WordPress.WP.GlobalVariablesOverride.Prohibited -- restored by as_visitor()
	}
}
